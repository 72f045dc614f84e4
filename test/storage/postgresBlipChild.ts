// The database-blip trial's Host process (run with `node --import tsx`): a schedule service on a
// plain PostgreSQL storage (`PG_BLIP_URL`, `PG_BLIP_SCHEMA`, connections named
// `PG_BLIP_APP`) with fake Sessions. It reads one JSON command a line on stdin — `create` (one
// `schedule_create` in the Session it names; answered with the task id or the refusal's code) and
// `close` (closes the service, answers `closed`, exits) — and answers one JSON line each on
// stdout. Warnings and errors it logs are counted and handed back with `closed`.
import { createInterface } from 'node:readline';
import { postgresStorage } from '../../src/adapters/postgres/postgresStorage.ts';
import { createScheduleService } from '../../src/service.ts';
import { createFakeSessions } from '../../src/testing.ts';

interface Command {
  readonly cmd: 'create' | 'close';
  readonly n?: number;
  readonly sessionId?: string;
}

const say = (answer: Record<string, unknown>): void => void process.stdout.write(`${JSON.stringify(answer)}\n`);

const logged = { warn: 0, error: 0 };
const service = await createScheduleService({
  storage: postgresStorage({
    connectionString: String(process.env.PG_BLIP_URL),
    schema: String(process.env.PG_BLIP_SCHEMA),
    applicationName: String(process.env.PG_BLIP_APP),
    reconnect: { initialMs: 5, maxMs: 50 },
  }),
  sessions: createFakeSessions(),
  logger: {
    warn: () => void logged.warn++,
    error: () => void logged.error++,
  },
});
say({ e: 'ready' });

const create = { title: 'Blip', prompt: 'check the database', after_seconds: 86_400 };

createInterface({ input: process.stdin }).on('line', (line) => {
  const command = JSON.parse(line) as Command;
  if (command.cmd === 'close') {
    void service.close().then(
      () => {
        say({ e: 'closed', logged });
        process.exit(0);
      },
      (error: unknown) => {
        say({ e: 'closed', logged, error: String(error) });
        process.exit(1);
      },
    );
    return;
  }
  service.callTool(String(command.sessionId), 'schedule_create', create).then(
    (answer) => say('code' in answer ? { e: 'created', n: command.n, code: answer.code } : { e: 'created', n: command.n, id: answer.id }),
    (error: unknown) => say({ e: 'created', n: command.n, code: `rejected: ${String(error)}` }),
  );
});

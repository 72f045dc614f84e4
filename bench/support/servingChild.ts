// One process of the restore benchmark's start-to-serving cases (restore.bench.ts starts it from
// beside itself, compiled as every benchmark is): a Host that comes up on a schema already holding
// its pending reminders and answers one create — a schedule service on `postgresStorage` answering
// schedule_create, or pg-boss started and answering a `send` of a job with a start time. It prints
// one JSON line: the ms from the process's start (Node's time origin) until that answer, and the
// RSS then. What each case needs is imported only in its case, so neither pays for the other's modules.
// Ours is the built package (dist/, which restore.bench.ts builds first), as a Host installs it:
// imported by the package's own name, which resolves to this checkout's dist/.

/** What the parent passes as the one argument (JSON). */
export interface ServingOptions {
  readonly system: 'postgresStorage' | 'pg-boss';
  readonly url: string;
  readonly schema: string;
  /** pg-boss's queue the pending jobs are in. */
  readonly queue: string;
}

export interface ServingFigures {
  readonly servingMs: number;
  readonly rssMb: number;
}

const options = JSON.parse(process.argv[2] ?? 'null') as ServingOptions | null;
if (options === null) throw new Error('usage: servingChild.ts <options as JSON>');
const inADay = (): Date => new Date(Date.now() + 86_400_000);

async function serveOurs(o: ServingOptions): Promise<() => Promise<void>> {
  const { default: pg } = await import('pg');
  // Names held in variables: the type checker reads the sources, Node the built entries.
  const core: string = 'agent-schedule';
  const postgres: string = 'agent-schedule/postgres';
  const { createScheduleService } = (await import(core)) as typeof import('../../src/index.ts');
  const { postgresStorage } = (await import(postgres)) as typeof import('../../src/entries/postgres.ts');
  const pool = new pg.Pool({ connectionString: o.url, max: 10, application_name: 'agent-schedule-bench serving' });
  const service = await createScheduleService({
    sessions: {
      async resolveAgent() {
        return { followup: () => ({ messageId: `m-${Math.random()}` }), flush: async () => {} };
      },
    },
    storage: postgresStorage({ pool: pool as never, schema: o.schema }),
    logger: { warn() {}, error() {} },
  });
  const answer = (await service.callTool('serving-probe', 'schedule_create', {
    title: 'serving probe',
    prompt: 'the first call after the start',
    at: inADay().toISOString(),
  })) as { code?: string; message?: string };
  if (answer.code !== undefined) throw new Error(`schedule_create answered ${answer.code}: ${answer.message}`);
  return async () => {
    await service.close();
    await pool.end();
  };
}

async function serveBoss(o: ServingOptions): Promise<() => Promise<void>> {
  const { default: PgBoss } = await import('pg-boss');
  const boss = new PgBoss({ connectionString: o.url, schema: o.schema, max: 10 });
  boss.on('error', () => undefined);
  await boss.start();
  const id = await boss.send(o.queue, { sessionId: 'serving-probe', title: 'serving probe' }, { startAfter: inADay() });
  if (id === null) throw new Error('pg-boss sent no job');
  return () => boss.stop({ graceful: false, wait: true });
}

const close = options.system === 'pg-boss' ? await serveBoss(options) : await serveOurs(options);
const figures: ServingFigures = { servingMs: performance.now(), rssMb: process.memoryUsage().rss / 2 ** 20 };
await close();
console.log(JSON.stringify(figures));
process.exit(0);

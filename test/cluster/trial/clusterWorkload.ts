// The cluster trials' workload: the seeded tasks (500 Sessions, 5 000 tasks of every kind, made
// once per trial by one schedule service on a memory storage and a manual clock that never moves,
// so none is delivered there, then bulk-inserted into the trial's schema) and the calls made
// during the run — creates, title updates (some with a new timing) and deletes, each on a task no
// other call of the trial touches, each create and update with a title no other call uses, so the
// rows at the end can be traced to the calls that wrote them.
import { memoryStorage } from '../../../src/adapters/memoryStorage.ts';
import type { SqlPool } from '../../../src/adapters/postgres/driver.ts';
import { migrate } from '../../../src/adapters/postgres/migrations.ts';
import { encodeStoredRow } from '../../../src/adapters/postgres/rowColumns.ts';
import type { TaskRow } from '../../../src/domain/tasks/types.ts';
import { createScheduleService } from '../../../src/service.ts';
import { createFakeSessions, createManualClock } from '../../../src/testing.ts';
import { run } from '../../storage/postgresHarness.ts';
import type { ClusterCall } from './clusterChild.ts';

type Rand = () => number;
const pick = <T>(rand: Rand, items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;
const int = (rand: Rand, min: number, max: number): number => min + Math.floor(rand() * (max - min + 1));
const pad = (n: number): string => String(n).padStart(2, '0');

export const KINDS = ['after', 'at', 'every', 'daily', 'weekly', 'cron'] as const;
const ZONES = ['UTC', 'Europe/London', 'America/New_York', 'Asia/Kolkata'];
const CRONS = ['*/30 * * * *', '10 * * * *', '15 8-18 * * 1-5', '0 0 * * *', '45 */2 * * *'];

/** A timing selector of `kind` at simulated time `now`: due now and then over the next few simulated hours. */
export function selector(rand: Rand, kind: (typeof KINDS)[number], now: number): Record<string, unknown> {
  switch (kind) {
    case 'after':
      return { after_seconds: int(rand, 2, 150) * 60 };
    case 'at':
      return { at: new Date(Math.ceil(now / 60_000) * 60_000 + int(rand, 2, 150) * 60_000).toISOString() };
    case 'every':
      return { every_seconds: pick(rand, [1800, 3600, 7200]) };
    case 'daily':
      return { daily: { time: `${pad(int(rand, 0, 23))}:${pad(pick(rand, [0, 20, 40]))}:00`, time_zone: pick(rand, ZONES) } };
    case 'weekly':
      return {
        weekly: {
          time: `${pad(int(rand, 0, 23))}:30:00`,
          time_zone: pick(rand, ZONES),
          weekdays: [...new Set([int(rand, 1, 7), int(rand, 1, 7)])].sort(),
        },
      };
    default:
      return { cron: { expression: pick(rand, CRONS), time_zone: pick(rand, ZONES) } };
  }
}

export const sessionName = (i: number): string => `cs${String(i).padStart(3, '0')}`;

/** One seeded task. */
export interface SeededTask {
  readonly id: string;
  readonly sessionId: string;
  readonly title: string;
}

/**
 * Seeds `tasks` tasks over `sessions` Sessions at simulated time `simStart`: created through a
 * schedule service on a memory storage (the tool calls' validation and encoding), then written to
 * the trial's `tasks` table in a few bulk inserts, with the id counter after them.
 */
export async function seedTasks(
  pool: SqlPool,
  schema: string,
  options: { sessions: number; tasks: number; simStart: number; rand: Rand },
): Promise<SeededTask[]> {
  const clock = createManualClock(new Date(options.simStart).toISOString());
  const storage = memoryStorage();
  const service = await createScheduleService({
    storage,
    sessions: createFakeSessions(),
    clock,
    logger: { warn: () => undefined, error: () => undefined },
  });
  const seeded: SeededTask[] = [];
  try {
    for (let i = 0; i < options.tasks; i++) {
      const sessionId = sessionName(i % options.sessions);
      const kind = KINDS[i % KINDS.length] ?? 'after';
      const title = `seed ${i}`;
      const result = (await service.callTool(sessionId, 'schedule_create', {
        title,
        prompt: `seeded ${kind} ${i}`,
        ...selector(options.rand, kind, options.simStart),
      })) as unknown as Record<string, unknown>;
      if (typeof result.code === 'string') throw new Error(`seeding ${title} was refused: ${JSON.stringify(result)}`);
      seeded.push({ id: String(result.id), sessionId, title });
    }
    await service.whenIdle();
  } finally {
    await service.close();
  }
  const document = storage.document() as { tasks: TaskRow[]; nextTaskNumber: number };
  const client = await pool.connect();
  try {
    await migrate(client, schema);
  } finally {
    client.release();
  }
  for (let at = 0; at < document.tasks.length; at += 1000) {
    const columns = document.tasks.slice(at, at + 1000).map((row) => ({ ...encodeStoredRow(row), row: JSON.stringify(row) }));
    await run(
      pool,
      `insert into "${schema}".tasks (id, session_id, shard, status, next_target, row)
       select * from unnest($1::text[], $2::text[], $3::smallint[], $4::text[], $5::timestamptz[], $6::json[])`,
      [
        columns.map((c) => c.id),
        columns.map((c) => c.sessionId),
        columns.map((c) => c.shard),
        columns.map((c) => c.status),
        columns.map((c) => c.nextTarget),
        columns.map((c) => c.row),
      ],
    );
  }
  await run(pool, `select setval('"${schema}".task_number', $1::bigint, false)`, [document.nextTaskNumber]);
  return seeded;
}

/** A call of the run, as sent and as checked. */
export interface RunOp {
  readonly call: ClusterCall;
  readonly kind: 'create' | 'update' | 'delete';
  /** The task acted on (updates and deletes). */
  readonly id?: string;
  /** The title written (creates and updates). */
  readonly title?: string;
}

/** The next call: a create, or an update or delete of a seeded task no call touched yet (taken from `untouched`). */
export function nextRunOp(rand: Rand, n: number, tag: string, untouched: SeededTask[], sessions: number, now: number): RunOp {
  const roll = rand();
  const target = untouched.length === 0 || roll < 0.4 ? undefined : untouched.splice(Math.floor(rand() * untouched.length), 1)[0];
  if (target === undefined) {
    const kind = pick(rand, KINDS);
    const title = `c${tag}.${n}`;
    const call: ClusterCall = {
      n,
      sessionId: sessionName(int(rand, 0, sessions - 1)),
      name: 'schedule_create',
      args: { title, prompt: `p${tag}.${n}`, ...selector(rand, kind, now) },
    };
    return { call, kind: 'create', title };
  }
  if (roll < 0.8) {
    const title = `u${tag}.${n}`;
    const args: Record<string, unknown> = { id: target.id, title };
    if (rand() < 0.3) args.change = { kind: 'every', every_seconds: pick(rand, [3600, 7200]) };
    return { call: { n, sessionId: target.sessionId, name: 'schedule_update', args }, kind: 'update', id: target.id, title };
  }
  return { call: { n, sessionId: target.sessionId, name: 'schedule_delete', args: { id: target.id } }, kind: 'delete', id: target.id };
}

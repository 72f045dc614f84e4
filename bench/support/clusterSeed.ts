// Writing tasks into a cluster benchmark schema before any Host runs: rows committed through an
// unfenced `postgresStorage`, with ids from the schema's own task-number sequence (so a Host
// creating tasks later never reuses one), and Session ids that fall in a chosen shard.
import type { SqlPool } from '../../src/adapters/postgres/driver.ts';
import { postgresStorage } from '../../src/adapters/postgres/postgresStorage.ts';
import { shardOf } from '../../src/domain/tasks/sessionShard.ts';
import type { TaskRow } from '../../src/domain/tasks/types.ts';

/**
 * Rows of one kind — one-shots (`at`) or hourly (`every`) — task i in Session `<prefix><i mod sessions>`,
 * all due at `scheduledAt` (ids are set on seeding).
 */
export function dueRows(kind: 'at' | 'every', count: number, sessions: number, prefix: string, scheduledAt: string): TaskRow[] {
  return Array.from(
    { length: count },
    (_, i) =>
      ({
        sessionId: `${prefix}${i % sessions}`,
        status: 'active',
        record: {
          id: '',
          title: `task ${i}`,
          prompt: `check ${i}`,
          scheduledAt,
          ...(kind === 'at' ? { kind } : { kind, everySeconds: 3_600 }),
        },
      }) as TaskRow,
  );
}

/** `count` Session ids `<prefix><j>` whose shard is `shard`. */
export function sessionsInShard(shard: number, count: number, prefix: string): string[] {
  const found: string[] = [];
  for (let j = 0; found.length < count; j++) if (shardOf(`${prefix}${j}`) === shard) found.push(`${prefix}${j}`);
  return found;
}

/** Rows per commit of a seeding: a bounded statement however many rows are seeded. */
const SEED_CHUNK = 5_000;

/** Migrates `schema` and writes `rows` (their ids replaced by fresh ones), in commits of {@link SEED_CHUNK} rows. */
export async function seedRows(pool: SqlPool, schema: string, rows: readonly TaskRow[]): Promise<void> {
  const storage = postgresStorage({ pool, schema });
  await storage.open();
  try {
    const numbers: number[] = [];
    while (numbers.length < rows.length)
      numbers.push(...(await storage.allocateTaskNumbers(Math.min(10_000, rows.length - numbers.length))));
    const puts = rows.map((row, i) => ({ ...row, record: { ...row.record, id: `sch_${numbers[i]}` } }) as TaskRow);
    for (let at = 0; at < puts.length; at += SEED_CHUNK) await storage.commit({ puts: puts.slice(at, at + SEED_CHUNK), deletes: [] });
  } finally {
    await storage.close();
  }
}

// A consumer of `agent-schedule/postgres`, type-checked against the installed package (without
// `pg` or its types installed) by `npm run test:package`: the storage, its options and the pool seam.
import {
  type PostgresStorage,
  type PostgresStorageOptions,
  postgresStorage,
  SCHEMA_VERSION,
  type SqlPool,
  shardOf,
} from 'agent-schedule/postgres';

const options: PostgresStorageOptions = {
  connectionString: 'postgres://127.0.0.1/test',
  schema: 'agent_schedule',
  reconnect: { maxMs: 2000 },
};
export const storage: PostgresStorage = postgresStorage(options);
export const onPool = (pool: SqlPool): PostgresStorage => postgresStorage({ pool });
export const version: number = SCHEMA_VERSION;
export const shard: number = shardOf('demo');
export async function firstIds(): Promise<string[]> {
  const domain = await storage.open();
  const numbers = await storage.allocateTaskNumbers(2);
  await storage.commit({ puts: [], deletes: [], nextTaskNumber: Math.max(domain.nextTaskNumber, ...numbers) + 1 });
  await storage.close();
  return numbers.map((n) => `sch_${n}`);
}

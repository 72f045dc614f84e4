// How long a routed create takes, and how many round trips it makes, against the real server:
// Host A holds every shard and runs a schedule service on a fenced storage; Host B only routes. Each
// Host has its own pool (as two processes would). Prints p50/p99 of creates made at A directly and
// routed from B, one at a time and 8 at once, with the round trips per create and the load
// average. A measurement, not a test: `npx tsx test/storage/routedLatency.ts [count]`.
import { loadavg } from 'node:os';
import pg from 'pg';
import { callRouter } from '../../src/adapters/postgres/callRouter.ts';
import type { SqlPool } from '../../src/adapters/postgres/driver.ts';
import { migrate } from '../../src/adapters/postgres/migrations.ts';
import { postgresStorage } from '../../src/adapters/postgres/postgresStorage.ts';
import { createScheduleService } from '../../src/service.ts';
import { createFakeSessions } from '../../src/testing.ts';
import { countingPool } from '../support/countingPool.ts';

const url = process.env.PG_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const count = Number(process.argv[2] ?? 300);
const schema = `hc_latency_${process.pid}`;

const poolOf = (name: string): SqlPool => {
  const pool = new pg.Pool({ connectionString: url, application_name: name, max: 10 });
  pool.on('error', () => undefined);
  return pool as unknown as SqlPool;
};

const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;

async function main(): Promise<void> {
  const admin = poolOf('hc-latency-admin');
  const client = await admin.connect();
  try {
    await migrate(client, schema);
    await client.query(`update "${schema}".shard_leases set owner = 'a', epoch = epoch + 1, expires_at = now() + interval '1 hour'`);
  } finally {
    client.release();
  }
  const epochRows = await admin.connect().then(async (c) => {
    try {
      return (await c.query(`select shard, epoch::int as epoch from "${schema}".shard_leases`)).rows;
    } finally {
      c.release();
    }
  });
  const epochs = new Map(epochRows.map((r) => [Number(r.shard), Number(r.epoch)]));
  const a = countingPool(poolOf('hc-latency-a'));
  const b = countingPool(poolOf('hc-latency-b'));
  const quiet = { warn: () => undefined, error: () => undefined };
  const service = await createScheduleService({
    sessions: createFakeSessions(),
    storage: postgresStorage({ pool: a.pool, schema, fence: { hostId: 'a', epochs: () => epochs } }),
    logger: quiet,
  });
  const args = (n: number) => ({ title: `Ping ${n}`, prompt: 'Ping.', after_seconds: 3600 });
  const routerA = callRouter({
    pool: a.pool,
    schema,
    hostId: 'a',
    owns: (shard) => epochs.get(shard),
    execute: async (request) => {
      const { sessionId, n } = request.request as { sessionId: string; n: number };
      return (await service.callTool(sessionId, 'schedule_create', args(n))) as never;
    },
  });
  const routerB = callRouter({ pool: b.pool, schema, hostId: 'b', owns: () => undefined, execute: async () => null });
  await routerA.start();
  await routerB.start();

  const local = (n: number) => service.callTool(`s-${n % 64}`, 'schedule_create', args(n));
  const routed = (n: number) => routerB.route(`s-${n % 64}`, { sessionId: `s-${n % 64}`, n });
  for (let n = 0; n < 40; n++) await Promise.all([local(n), routed(n)]);

  const measure = async (name: string, run: (n: number) => Promise<unknown>, concurrency: number) => {
    await service.whenIdle();
    a.reset();
    b.reset();
    const times: number[] = [];
    const started = performance.now();
    let next = 1_000;
    const end = 1_000 + count;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        for (let n = next++; n < end; n = next++) {
          const t0 = performance.now();
          await run(n);
          times.push(performance.now() - t0);
        }
      }),
    );
    const elapsed = performance.now() - started;
    times.sort((x, y) => x - y);
    const trips = (a.count() + b.count()) / count;
    console.log(
      `${name.padEnd(22)} concurrency ${concurrency}: p50 ${percentile(times, 50).toFixed(2)} ms, p99 ${percentile(times, 99).toFixed(2)} ms, ${(count / (elapsed / 1000)).toFixed(0)}/s, ${trips.toFixed(2)} round trips per create (A ${(a.count() / count).toFixed(2)}, B ${(b.count() / count).toFixed(2)})`,
    );
  };
  console.log(
    `${count} creates each; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  await measure('create at the owner', local, 1);
  await measure('routed create', routed, 1);
  await measure('create at the owner', local, 8);
  await measure('routed create', routed, 8);
  console.log(
    `load average after ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );

  await routerB.stop();
  await routerA.stop();
  await service.close();
  await a.pool.end();
  await b.pool.end();
  const drop = await admin.connect();
  try {
    await drop.query(`drop schema "${schema}" cascade`);
  } finally {
    drop.release();
  }
  await admin.end();
}

await main();

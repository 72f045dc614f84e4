// Benchmark: many Hosts on one PostgreSQL schema (createClusterService), every Host a process of
// its own (bench/support/clusterChild.ts). Eight parts, each printed as a table: (1) schedule_create
// latency, throughput and round trips on 1 and 3 Hosts, with a client that sends each call to any
// Host and one that sends it to the Session's owner, beside jsonFileStorage and postgresStorage
// unclustered; (2) 10,000 tasks due at one instant on 1 and 3 Hosts; (3) takeover after a SIGKILL,
// 20 kills, with the replacement joining after the takeover and at the kill; (4) acquiring and
// restoring one shard of 400 tasks; (5) creates beside pg-boss on the same server, alternating;
// (6) CPU time and round trips of the same 10,000 creates and deliveries on 1 and 3 Hosts; (7) a
// Session's read at a Host that does not own it, from the schema and routed to the owner; (8) a
// Host joining 2 Hosts while reminders fall due, their lateness in the shards handed on to it.
// Schemas `cluster_bench_<run>_<case>` (and `pgboss_bench_<run>_<case>`) in the database at
// CLUSTER_BENCH_URL (default the local `test` database), all dropped at the end.
// CLUSTER_BENCH_PARTS=2,3 runs only those parts; CLUSTER_BENCH_ONESHOTS=1 adds one-shot tasks to (2).
// Sizes for a short run: CLUSTER_BENCH_SEQUENTIAL, _CALLERS, _THROUGHPUT_MS (1), _BURST_TASKS (2),
// _KILLS, _JOIN_AFTER_MS (3), _SHARD_REPETITIONS (4), _PGBOSS_ROUNDS, _PGBOSS_SEQUENTIAL, _PGBOSS_MS (5), _CPU_TASKS, _CPU_ROUNDS (6),
// _READ_ROUNDS, _READS (7), _HANDOFF_TASKS (8).
// Nothing here asserts a speed.
import { cpus, loadavg } from 'node:os';
import { measureBurst, printBursts } from './support/clusterBurst.ts';
import { measureCreates, printCreates } from './support/clusterCreate.ts';
import { adminPool, dropSchemas } from './support/clusterDb.ts';
import { type EfficiencyFigures, efficiencyCases, measureEfficiency, printEfficiency } from './support/clusterEfficiency.ts';
import { measureHandoff, printHandoff } from './support/clusterHandoff.ts';
import { measureVsPgBoss, printVsPgBoss } from './support/clusterPgBoss.ts';
import { logCounts, loggedSince } from './support/clusterProcess.ts';
import { measureReads, printReads } from './support/clusterReads.ts';
import { measureShardRestore, printShardRestore } from './support/clusterRestore.ts';
import { measureTakeover, printTakeover } from './support/clusterTakeover.ts';

const parts = new Set((process.env.CLUSTER_BENCH_PARTS ?? '1,2,3,4,5,6,7,8').split(',').map((p) => p.trim()));
const admin = adminPool();
const started = performance.now();
const dropAll = () => dropSchemas(admin).catch((error: unknown) => console.error('dropping the benchmark schemas failed:', error));
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
let failed = false;
/** Runs one part; a part that fails is reported and the others still run. */
const part = async (name: string, run: () => Promise<void>): Promise<void> => {
  const before = new Map(logCounts);
  console.log(`### part ${name} (load average at its start ${load()})`);
  console.log('');
  try {
    await run();
  } catch (error) {
    failed = true;
    console.log(`part ${name} failed: ${String((error as Error)?.message ?? error)}`);
  }
  const logged = loggedSince(before);
  console.log('');
  console.log(
    `logged by the Host processes in this part: ${logged.length === 0 ? 'nothing' : logged.join('; ')}; load average at its end ${load()}`,
  );
  console.log('');
};
process.once('SIGINT', () => void dropAll().finally(() => process.exit(130)));
try {
  const { rows } = await admin.query<{ server_version: string }>('show server_version');
  console.log(
    `machine: ${cpus().length} cores (${cpus()[0]?.model.trim()}), shared with other work; load average ${load()}; Node ${process.version}; PostgreSQL ${rows[0]?.server_version} on the same machine`,
  );
  console.log('');
  if (parts.has('1'))
    await part('1: creates on 1 and 3 Hosts', async () => {
      printCreates([
        ...(await measureCreates(admin, 'jsonFileStorage', { mode: 'json', count: 1, tag: 'json' })),
        ...(await measureCreates(admin, 'postgresStorage, unclustered', { mode: 'postgres', count: 1, tag: 'plain' })),
        ...(await measureCreates(admin, 'cluster', { mode: 'cluster', count: 1, tag: 'c1' })),
        ...(await measureCreates(admin, 'cluster', { mode: 'cluster', count: 3, tag: 'c3' }, ['random', 'owner', 'away'])),
      ]);
    });
  if (parts.has('2'))
    await part('2: a burst of deliveries', async () => {
      const bursts = [];
      const kinds = process.env.CLUSTER_BENCH_ONESHOTS === '1' ? (['every', 'at'] as const) : (['every'] as const);
      for (const kind of kinds) for (const hosts of [1, 3]) bursts.push(await measureBurst(admin, hosts, kind));
      printBursts(bursts);
    });
  if (parts.has('3'))
    await part('3: takeover after a SIGKILL', async () => {
      printTakeover(await measureTakeover(admin, false));
      console.log('');
      printTakeover(await measureTakeover(admin, true));
    });
  if (parts.has('4')) await part('4: one shard acquired and restored', async () => printShardRestore(await measureShardRestore(admin)));
  if (parts.has('5')) await part('5: creates beside pg-boss', async () => printVsPgBoss(await measureVsPgBoss(admin)));
  if (parts.has('6'))
    await part('6: CPU and round trips for the same work on 1 and 3 Hosts', async () => {
      const results: EfficiencyFigures[] = [];
      for (const [hosts, client] of efficiencyCases()) results.push(...(await measureEfficiency(admin, hosts, client)));
      printEfficiency(results);
    });
  if (parts.has('7')) await part("7: a Session's read away from its owner", async () => printReads(await measureReads(admin)));
  if (parts.has('8')) await part('8: a Host joins while reminders fall due', async () => printHandoff(await measureHandoff(admin)));
  console.log(`the whole benchmark: ${((performance.now() - started) / 1000).toFixed(0)} s`);
} finally {
  await dropAll();
  await admin.end();
}
if (failed) process.exitCode = 1;

// Cluster benchmark, part 2: 10,000 tasks over 1,000 Sessions, all due at one instant, on 1 and on
// 3 Host processes: hourly tasks (each Session gets one batch message of its 10 reminders) and
// one-shots (one message per reminder). The tasks are written to the schema before the Hosts start; each Host
// restores those of the shards it takes. Once the shares have settled and every shard's service is
// open and idle, the parent moves every Host's clock to a minute before the instant, where real
// time would pass on its way there (a restored task gets its actor a minute before it falls due:
// `RESTORE_LEAD_MS`), waits for the Hosts to be idle again, then moves the clocks so that the instant
// arrives at a real moment a little ahead, and polls the Hosts' Sessions until every reminder has
// been flushed into them: the figure is from that moment to the end of the last flush.
import type pg from 'pg';
import { RESTORE_LEAD_MS } from '../../src/runtime/scheduler.ts';
import { realNow } from '../../test/reliability/acceleratedClock.ts';
import { envNumber } from './benchEnv.ts';
import { benchSchema } from './clusterDb.ts';
import { LEASE_MS, POOL_MAX, SIM_START, startGroup } from './clusterHosts.ts';
import { logCounts, loggedSince } from './clusterProcess.ts';
import { dueRows, seedRows } from './clusterSeed.ts';
import { fmt } from './domains.ts';

export const BURST_TASKS = envNumber('CLUSTER_BENCH_BURST_TASKS', 10_000);
export const BURST_SESSIONS = 1_000;
/** The instant every task is due at: half an hour into the simulated day (the clock is moved there). */
const DUE = SIM_START + 30 * 60_000;
/** How far ahead of the move command the instant is set to arrive, in real ms. */
const LEAD_MS = 400;

export interface BurstFigures {
  readonly kind: 'every' | 'at';
  readonly hosts: number;
  readonly ms: number;
  /** From the instant until every Host reported idle (every receipt committed), polled after the last flush. */
  readonly idleMs: number;
  readonly reminders: number;
  readonly messages: number;
  /** Reminders per Host. */
  readonly split: number[];
  /** CPU time each Host process used from the move until the last reminder was counted. */
  readonly cpuMs: number[];
  /** Per Host: the most queries waiting for a pool connection at once during the burst. */
  readonly maxWaiting: number[];
  readonly setupMs: number;
  /** What the Hosts logged before the instant (while starting and restoring) and from then on. */
  readonly loggedBefore: string[];
  readonly loggedDuring: string[];
}

interface Stats {
  reminders: number;
  messages: number;
  lastAt: number;
  cpuMs: number;
  maxWaiting: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function measureBurst(admin: pg.Pool, hosts: number, kind: 'every' | 'at'): Promise<BurstFigures> {
  const t0 = performance.now();
  const atStart = new Map(logCounts);
  const tag = `burst${hosts}${kind}`;
  const schema = benchSchema(tag);
  await seedRows(admin, schema, dueRows(kind, BURST_TASKS, BURST_SESSIONS, 'burst-', new Date(DUE).toISOString()));
  const g = await startGroup(admin, { mode: 'cluster', count: hosts, tag, schema });
  try {
    await Promise.all(g.hosts.map((h) => h.send('idle')));
    // The minute before the instant: the tasks' actors are spawned (the timers re-armed on the
    // moved clock fire at once), as they would be while real time passed it.
    await Promise.all(g.hosts.map((h) => h.send('move', { sim: DUE - RESTORE_LEAD_MS, real: realNow() })));
    await sleep(LEAD_MS);
    await Promise.all(g.hosts.map((h) => h.send('idle')));
    const setupMs = performance.now() - t0;
    const before = await Promise.all(g.hosts.map((h) => h.send<Stats>('stats')));
    const loggedBefore = loggedSince(atStart);
    const atMove = new Map(logCounts);
    const at = realNow() + LEAD_MS;
    await Promise.all(g.hosts.map((h) => h.send('move', { sim: DUE, real: at })));
    if (realNow() >= at) throw new Error('the clocks were moved too late: raise LEAD_MS');
    const deadline = performance.now() + 90_000;
    for (;;) {
      await sleep(100);
      const stats = await Promise.all(g.hosts.map((h) => h.send<Stats>('stats')));
      const reminders = stats.reduce((a, s) => a + s.reminders, 0);
      if (reminders >= BURST_TASKS || performance.now() > deadline) {
        // The receipts are committed after the flush: wait until every Host is idle before stopping them.
        await Promise.all(g.hosts.map((h) => h.send('idle')));
        const idleMs = realNow() - at;
        return {
          idleMs,
          kind,
          hosts,
          ms: Math.max(...stats.map((s) => s.lastAt)) - at,
          reminders,
          messages: stats.reduce((a, s) => a + s.messages, 0),
          split: stats.map((s) => s.reminders),
          maxWaiting: stats.map((s) => s.maxWaiting),
          cpuMs: stats.map((s, i) => s.cpuMs - (before[i]?.cpuMs ?? 0)),
          setupMs,
          loggedBefore,
          loggedDuring: loggedSince(atMove),
        };
      }
    }
  } finally {
    await g.stop();
  }
}

export function printBursts(results: readonly BurstFigures[]): void {
  console.log(
    `${BURST_TASKS.toLocaleString('en')} tasks over ${BURST_SESSIONS.toLocaleString('en')} Sessions, all due at one instant; from the instant to the last reminder flushed into its Session (recording Sessions in each Host process); leaseMs ${LEASE_MS}; pools of ${POOL_MAX} connections`,
  );
  console.log('');
  console.log(
    '| tasks | Host processes | instant → last reminder delivered | → every Host idle | reminders delivered | messages | reminders per Host | CPU per Host | most queries waiting for a connection | setup (seed, start, restore) |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---|---|---|---:|');
  for (const r of results)
    console.log(
      `| ${r.kind === 'every' ? 'hourly' : 'one-shot'} | ${r.hosts} | ${fmt(r.ms, 0)} ms | ${fmt(r.idleMs, 0)} ms | ${r.reminders.toLocaleString('en')} | ${r.messages.toLocaleString('en')} | ${r.split.join(' / ')} | ${r.cpuMs.map((c) => fmt(c, 0)).join(' / ')} ms | ${r.maxWaiting.join(' / ')} | ${fmt(r.setupMs / 1000, 1)} s |`,
    );
  for (const r of results) {
    const list = (xs: string[]) => (xs.length === 0 ? 'nothing' : xs.join('; '));
    console.log(
      `\n${r.kind === 'every' ? 'hourly' : 'one-shot'}, ${r.hosts} Host(s): logged before the instant: ${list(r.loggedBefore)}; from the instant until every Host was idle: ${list(r.loggedDuring)}`,
    );
  }
}

// Cluster benchmark, part 7: a Session's read at a Host that does not own it. Two clusters of 3
// Hosts, alike but for where such a read runs: at the Host the call reached, from the schema's
// rows (the default), or at the owner, routed through the database (`routing.readAtOwner`). Each
// has 100 Sessions of 5 tasks; in rounds alternating between the two, every Host lists Sessions it
// does not own, one call at a time. Latency where the call is made; round trips: the statements
// all Host processes sent, less their idle rate, per read.
import type pg from 'pg';
import { envNumber } from './benchEnv.ts';
import type { CallFigures } from './clusterChild.ts';
import { background, statementsPer, totals } from './clusterCounters.ts';
import { ownersOf } from './clusterDb.ts';
import { type HostGroup, startGroup } from './clusterHosts.ts';
import { fmt } from './domains.ts';
import { quantile } from './stats.ts';

const SESSIONS = 100;
const TASKS_PER_SESSION = 5;
export const READ_ROUNDS = envNumber('CLUSTER_BENCH_READ_ROUNDS', 3);
export const READS = envNumber('CLUSTER_BENCH_READS', 300);

export interface ReadFigures {
  readonly where: 'schema' | 'owner';
  readonly round: number;
  readonly p50: number;
  readonly p99: number;
  readonly roundTrips: number;
  readonly failed: number;
  readonly firstFailure?: string;
}

const sorted = (xs: readonly number[]): number[] => [...xs].sort((a, b) => a - b);
const IDS = Array.from({ length: SESSIONS }, (_, i) => `s-${i}`);

interface Prepared {
  readonly where: ReadFigures['where'];
  readonly group: HostGroup;
  /** Per Host, the Sessions it does not own. */
  readonly away: string[][];
  readonly idle: Awaited<ReturnType<typeof background>>;
}

async function prepare(admin: pg.Pool, where: ReadFigures['where']): Promise<Prepared> {
  const group = await startGroup(admin, { mode: 'cluster', count: 3, tag: `read_${where}`, readAtOwner: where === 'owner' });
  const first = group.hosts[0];
  if (first === undefined) throw new Error('no Host started');
  await first.send('latency', { count: SESSIONS * TASKS_PER_SESSION, ids: IDS, seed: 1 });
  await Promise.all(group.hosts.map((h) => h.send('idle')));
  const owners = await ownersOf(admin, group.schema, IDS);
  const away = group.hosts.map((h) => IDS.filter((s) => owners.get(s) !== h.hostId));
  // Warm-up: each Host reads a few Sessions it does not own.
  for (const [i, host] of group.hosts.entries()) await host.send('latency', { count: 20, ids: away[i], seed: 0, list: true });
  return { where, group, away, idle: await background(group.hosts) };
}

async function round(p: Prepared, n: number): Promise<ReadFigures> {
  const share = Math.ceil(READS / p.group.hosts.length);
  const before = await totals(p.group.hosts);
  const ms: number[] = [];
  let failed = 0;
  let firstFailure: string | undefined;
  for (const [i, host] of p.group.hosts.entries()) {
    const f = await host.send<CallFigures>('latency', { count: share, ids: p.away[i], seed: 0, list: true });
    ms.push(...f.ms);
    failed += f.failed;
    firstFailure ??= f.firstFailure;
  }
  const after = await totals(p.group.hosts);
  const all = sorted(ms);
  return {
    where: p.where,
    round: n,
    p50: quantile(all, 0.5),
    p99: quantile(all, 0.99),
    roundTrips: statementsPer(before, after, p.idle, ms.length),
    failed,
    ...(firstFailure === undefined ? {} : { firstFailure }),
  };
}

export async function measureReads(admin: pg.Pool): Promise<ReadFigures[]> {
  const prepared: Prepared[] = [];
  try {
    prepared.push(await prepare(admin, 'schema'), await prepare(admin, 'owner'));
    const results: ReadFigures[] = [];
    for (let n = 1; n <= READ_ROUNDS; n++) {
      // Alternating which goes first.
      const order = n % 2 === 1 ? prepared : [...prepared].reverse();
      for (const p of order) results.push(await round(p, n));
    }
    return results;
  } finally {
    for (const p of prepared) await p.group.stop();
  }
}

const WHERE: Record<ReadFigures['where'], string> = {
  schema: 'at the Host reached, from the schema',
  owner: 'routed to the owner (`readAtOwner`)',
};

export function printReads(results: readonly ReadFigures[]): void {
  console.log(
    `schedule_list of a Session the Host does not own, ${READS} calls one at a time per round (over ${SESSIONS} Sessions of ${TASKS_PER_SESSION} tasks, 3 Hosts); rounds alternate between a cluster that reads at the Host reached and one that routes reads to the owner`,
  );
  console.log('');
  console.log('| round | the read runs | p50 | p99 | round trips per read | failed |');
  console.log('|---:|---|---:|---:|---:|---:|');
  for (const r of results)
    console.log(`| ${r.round} | ${WHERE[r.where]} | ${fmt(r.p50, 2)} ms | ${fmt(r.p99, 2)} ms | ${fmt(r.roundTrips, 1)} | ${r.failed} |`);
  for (const r of results)
    if (r.firstFailure !== undefined) console.log(`\nround ${r.round} (${r.where}): first failure: ${r.firstFailure}`);
}

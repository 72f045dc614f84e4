// Cluster benchmark, part 3: takeover after a SIGKILL. Three Host processes on a short lease; each
// round one of them (in turn) is killed while it holds a one-shot reminder about to fall due in one
// of its shards, and a spare process (started beforehand, so its start-up is not in the figures)
// joins in its place: either once the takeover has been timed (the survivors take over alone), or
// at the kill (`CLUSTER_BENCH_JOIN_AFTER_MS` after it; the churn of a replacement joining while the
// survivors take over). The round ends once the shares have settled again. Per round: from the
// kill until every shard the dead Host held is owned by a live Host (polling shard_leases), and
// until that reminder has been delivered into its Session by the Host that took the shard over.
import type pg from 'pg';
import { shardOf } from '../../src/domain/tasks/sessionShard.ts';
import { realNow } from '../../test/reliability/acceleratedClock.ts';
import { envNumber } from './benchEnv.ts';
import { liveOwners, waitSettled } from './clusterDb.ts';
import { startGroup } from './clusterHosts.ts';
import type { ChildEvent, HostChild } from './clusterProcess.ts';
import { startHostChild } from './clusterProcess.ts';
import { fmt } from './domains.ts';
import { quantile } from './stats.ts';

export const LEASE_MS = 2_000;
export const KILLS = envNumber('CLUSTER_BENCH_KILLS', 20);
/** With a Host joining: how long after the kill it is asked to join (real ms). */
export const JOIN_AFTER_MS = Number(process.env.CLUSTER_BENCH_JOIN_AFTER_MS ?? 0);
/** The reminder falls due this long after the kill (real ms). */
const DUE_AFTER_KILL_MS = 100;

export interface TakeoverFigures {
  /** Whether the spare joined at the kill (else after the takeover was timed). */
  readonly joinAtKill: boolean;
  readonly leaseMs: number;
  readonly kills: number;
  /** Kill → every shard of the dead Host owned by a live Host, per round (ms). */
  readonly leases: number[];
  /** Kill → the reminder in a dead Host's shard delivered, per round (ms; NaN when it never came). */
  readonly delivered: number[];
  readonly shardsPerKill: number[];
  /** How long after the kill the reminder fell due, per round (ms). */
  readonly dueAfterKill: number[];
  readonly wallMs: number;
  /** Rounds skipped because the Host to kill held no shard, and rounds whose shares did not settle within 30 s after the join. */
  readonly skipped: number;
  readonly unsettled: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function measureTakeover(admin: pg.Pool, joinAtKill: boolean): Promise<TakeoverFigures> {
  const t0 = performance.now();
  const tag = joinAtKill ? 'takeoverjoin' : 'takeover';
  const g = await startGroup(admin, { mode: 'cluster', count: 3, tag, leaseMs: LEASE_MS, announce: 'probe-' });
  const seen = new Map<string, number>();
  const hear = (host: HostChild): void =>
    host.onEvent((event: ChildEvent) => {
      if (event.e === 'delivered' && !seen.has(event.sessionId as string)) seen.set(event.sessionId as string, event.at as number);
    });
  for (const host of g.hosts) hear(host);
  const live = [...g.hosts];
  let spare = startHostChild(g.options(`${tag}-s0`));
  const figures = {
    joinAtKill,
    leaseMs: LEASE_MS,
    kills: KILLS,
    leases: [] as number[],
    delivered: [] as number[],
    shardsPerKill: [] as number[],
    dueAfterKill: [] as number[],
    skipped: 0,
    unsettled: 0,
  };
  try {
    for (let round = 0; round < KILLS; round++) {
      const slot = round % live.length;
      const victim = live[slot]!;
      const owners = await liveOwners(admin, g.schema);
      const held = new Set([...owners].filter(([, owner]) => owner === victim.hostId).map(([shard]) => shard));
      if (held.size === 0) {
        // It holds nothing (its leases flapped away): no takeover to time this round.
        figures.skipped++;
        continue;
      }
      figures.shardsPerKill.push(held.size);
      // A reminder in one of the victim's shards, due just after the kill.
      let j = 0;
      while (!held.has(shardOf(`probe-${round}-${j}`))) j++;
      const probe = `probe-${round}-${j}`;
      const { now, real } = await victim.send<{ now: number; real: number }>('now');
      const offset = now - real; // simulated minus real time, the same in every Host
      let due = 0;
      for (let lead = 400; due === 0; lead *= 2) {
        // A loaded machine can make the create itself outlast the lead: then again, further ahead.
        const at = realNow() + offset + lead;
        const answer = await victim.send<{ code?: string }>('call', {
          sessionId: probe,
          args: { title: `probe ${round}`, prompt: 'the takeover probe', at: new Date(at).toISOString() },
        });
        if (answer.code === undefined) due = at;
        else if (answer.code !== 'not_future' || lead > 10_000)
          throw new Error(`the probe could not be created: ${JSON.stringify(answer)}`);
      }
      await sleep(due - offset - DUE_AFTER_KILL_MS - realNow());
      const killedAt = realNow();
      figures.dueAfterKill.push(due - offset - killedAt);
      victim.kill();
      // The spare was started beforehand; the next one starts once this takeover has been timed.
      const next = await spare;
      g.hosts.push(next);
      hear(next);
      let joined: Promise<unknown> | undefined;
      if (joinAtKill) joined = sleep(JOIN_AFTER_MS).then(() => next.send('join'));
      const survivors = new Set([...live.filter((h) => h !== victim), ...(joinAtKill ? [next] : [])].map((h) => h.hostId));
      let leasesAt: number | undefined;
      const deadline = killedAt + 30_000;
      while ((leasesAt === undefined || !seen.has(probe)) && realNow() < deadline) {
        if (leasesAt === undefined) {
          const now = await liveOwners(admin, g.schema);
          if ([...held].every((shard) => survivors.has(now.get(shard) ?? ''))) leasesAt = realNow();
        }
        await sleep(20);
      }
      figures.leases.push((leasesAt ?? Number.NaN) - killedAt);
      figures.delivered.push((seen.get(probe) ?? Number.NaN) - killedAt);
      spare = startHostChild(g.options(`${tag}-s${round + 1}`));
      await (joined ?? next.send('join'));
      live[slot] = next;
      // A round whose shares do not settle in time is counted; the next kill takes the Hosts as they are.
      await waitSettled(
        admin,
        g.schema,
        live.map((h) => h.hostId),
      ).catch(() => figures.unsettled++);
    }
  } finally {
    const last = await spare.catch(() => undefined);
    if (last !== undefined && !g.hosts.includes(last)) g.hosts.push(last);
    await g.stop();
  }
  return { ...figures, wallMs: performance.now() - t0 };
}

const sorted = (xs: readonly number[]): number[] => xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);

export function printTakeover(r: TakeoverFigures): void {
  const leases = sorted(r.leases);
  const delivered = sorted(r.delivered);
  const missing = r.delivered.length - delivered.length;
  console.log(
    `takeover after SIGKILL: 3 Host processes, leaseMs ${r.leaseMs} (keeper steps every ${Math.floor(r.leaseMs / 3)} ms), ${r.kills - r.skipped} kills, ${r.joinAtKill ? `a spare process asked to join ${JOIN_AFTER_MS} ms after each kill (the survivors and the joiner share the dead Host's shards)` : 'a spare process joining after each takeover was timed (the survivors take over alone)'}; ` +
      `the dead Host held ${Math.min(...r.shardsPerKill)}–${Math.max(...r.shardsPerKill)} shards; ${fmt(r.wallMs / 1000, 0)} s in all`,
  );
  console.log('');
  console.log('| from the kill until | p50 | p99 | min | max | leaseMs |');
  console.log('|---|---:|---:|---:|---:|---:|');
  const row = (what: string, xs: number[]) =>
    console.log(
      `| ${what} | ${fmt(quantile(xs, 0.5), 0)} ms | ${fmt(quantile(xs, 0.99), 0)} ms | ${fmt(xs[0] ?? Number.NaN, 0)} ms | ${fmt(xs.at(-1) ?? Number.NaN, 0)} ms | ${r.leaseMs} |`,
    );
  row('every shard of the dead Host is owned by a live Host', leases);
  const due = sorted(r.dueAfterKill);
  row(
    `a reminder in a dead Host's shard, due ${fmt(due[0] ?? Number.NaN, 0)}–${fmt(due.at(-1) ?? Number.NaN, 0)} ms after the kill, is delivered`,
    delivered,
  );
  if (r.skipped > 0) console.log(`\n${r.skipped} rounds skipped: the Host to kill held no shard`);
  if (r.unsettled > 0) console.log(`\n${r.unsettled} rounds whose shares had not settled 30 s after the spare joined`);
  if (missing > 0) console.log(`\n${missing} of the ${r.kills} reminders were not delivered within 30 s`);
}

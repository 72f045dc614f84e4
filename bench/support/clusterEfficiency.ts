// Cluster benchmark, part 6: the work, not the speed. Two cores cannot show three Hosts running
// three times as fast; they can show whether the work grows with the Hosts. The same 10,000
// one-shot creates (over 1,000 Sessions, `callers` in flight split over the Hosts) and then their
// 10,000 deliveries (all due at one instant the parent moves the clocks to) on a cluster of 1 and
// of 3 Host processes; the client sends each create to any Host (`random`) or to the Session's
// owner (`owner`, by the documented hash and `shard_leases`). Figures: the CPU time of all Host
// processes together in each phase, and the statements they sent per create and per delivery,
// their idle rate taken off. The work is done in rounds on the same Host processes, each round's
// tasks due half an hour after the last (CLUSTER_BENCH_CPU_ROUNDS, default 4). A process's creates
// get cheaper over its first few thousand, as V8 compiles the paths that got hot; each of three
// processes sees a third of the calls, so three pay that warm-up three times and take three rounds
// to get as warm as one Host does in its first. The first round is a cold start's cost, the last
// the steady work. Where the extra CPU of three Hosts comes from can be taken apart with
// CLUSTER_BENCH_CPU_CALLERS (the callers in all, default 20) and CLUSTER_BENCH_CPU_IN_TURN=1 (the
// Hosts create one after the other, so they never contend for the cores); CLUSTER_BENCH_CPU_CASES
// picks the clusters (default `1,3-random,3-owner`).
import { join } from 'node:path';
import type pg from 'pg';
import { realNow } from '../../test/reliability/acceleratedClock.ts';
import { envNumber } from './benchEnv.ts';
import { background, statementsPer, totals } from './clusterCounters.ts';
import type { Client } from './clusterCreate.ts';
import { ownersOf } from './clusterDb.ts';
import { type HostGroup, LEASE_MS, POOL_MAX, SIM_START, startGroup } from './clusterHosts.ts';
import { fmt } from './domains.ts';

export const EFFICIENCY_TASKS = envNumber('CLUSTER_BENCH_CPU_TASKS', 10_000);
export const EFFICIENCY_ROUNDS = envNumber('CLUSTER_BENCH_CPU_ROUNDS', 4);
const SESSIONS = 1_000;
const CALLERS = envNumber('CLUSTER_BENCH_CPU_CALLERS', 20);
const IN_TURN = process.env.CLUSTER_BENCH_CPU_IN_TURN === '1';
/** Half an hour: a round's instant after the last, within the passivation horizon of the tasks created at it. */
const ROUND_MS = 30 * 60_000;
/** How far ahead of the move command the instant is set to arrive, in real ms. */
const LEAD_MS = 400;

export interface EfficiencyFigures {
  readonly hosts: number;
  /** 1 for the first round after the Hosts started. */
  readonly round: number;
  readonly client: Exclude<Client, 'away'>;
  readonly createMs: number;
  readonly deliverMs: number;
  readonly createCpuMs: number;
  readonly deliverCpuMs: number;
  /** CPU per second of all the processes idle, measured before the creates. */
  readonly idleCpuMsPerS: number;
  readonly idleStatementsPerS: number;
  readonly statementsPerCreate: number;
  readonly statementsPerDelivery: number;
  readonly delivered: number;
  /** Each Host's CPU per create (ms) over each thousand of its creates, in order. */
  readonly cpuMsPerCreate: readonly (readonly number[])[];
  readonly failed: number;
  readonly firstFailure?: string;
}

/** Runs `works` one after the other; answers their results in order. */
async function inTurn<T>(works: readonly (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = [];
  for (const work of works) results.push(await work());
  return results;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The clusters part 6 measures, from CLUSTER_BENCH_CPU_CASES (`1`, `3-random`, `3-owner`; default all three). */
export function efficiencyCases(): [number, EfficiencyFigures['client']][] {
  const named = (process.env.CLUSTER_BENCH_CPU_CASES ?? '1,3-random,3-owner').split(',').map((c) => c.trim());
  return named.map((c) => {
    const [hosts, client] = c.split('-');
    if ((hosts !== '1' && hosts !== '3') || (client !== undefined && client !== 'random' && client !== 'owner')) {
      throw new Error(`CLUSTER_BENCH_CPU_CASES names 1, 3-random or 3-owner, not ${JSON.stringify(c)}`);
    }
    return [Number(hosts), client ?? 'random'];
  });
}

/** Every round of part 6 on a fresh cluster of `hosts` Host processes, the client sending creates as `client` says. */
export async function measureEfficiency(admin: pg.Pool, hosts: number, client: EfficiencyFigures['client']): Promise<EfficiencyFigures[]> {
  const g = await startGroup(admin, { mode: 'cluster', count: hosts, tag: `eff${hosts}${client}` });
  try {
    const sessions = Array.from({ length: EFFICIENCY_TASKS }, (_, i) => `e-${i % SESSIONS}`);
    const owners = client === 'owner' ? await ownersOf(admin, g.schema, sessions) : undefined;
    const lists = g.hosts.map((h, k) =>
      sessions.filter((s, i) => (owners === undefined ? i % g.hosts.length === k : owners.get(s) === h.hostId)),
    );
    const figures: EfficiencyFigures[] = [];
    for (let round = 1; round <= EFFICIENCY_ROUNDS; round++) figures.push(await measureRound(g, lists, hosts, client, round));
    return figures;
  } finally {
    await g.stop();
  }
}

/** One round: the creates of `lists` (one list per Host), then their deliveries, all due `round` half hours into the day. */
async function measureRound(
  g: HostGroup,
  lists: readonly (readonly string[])[],
  hosts: number,
  client: EfficiencyFigures['client'],
  round: number,
): Promise<EfficiencyFigures> {
  const due = SIM_START + round * ROUND_MS;
  // Every shard opened and every commit done before the idle rate is taken.
  await Promise.all(g.hosts.map((h) => h.send('idle')));
  const idle = await background(g.hosts);
  // CLUSTER_BENCH_PROFILE_DIR: a CPU profile of each Host process over the creates, and one over the deliveries, of each round.
  const profileDir = process.env.CLUSTER_BENCH_PROFILE_DIR;
  const profile = async (stop: string | undefined, start: boolean): Promise<void> => {
    if (profileDir === undefined) return;
    await Promise.all(
      g.hosts.map(async (h) => {
        if (stop !== undefined) await h.send('profileStop', { path: join(profileDir, `${h.hostId}-${round}-${stop}.cpuprofile`) });
        if (start) await h.send('profileStart');
      }),
    );
  };
  await profile(undefined, true);
  const t0 = await totals(g.hosts);
  let first = (round - 1) * EFFICIENCY_TASKS;
  const at = new Date(due).toISOString();
  const creates = g.hosts.map((host, k) => {
    const list = lists[k]!;
    first += list.length;
    const from = first - list.length;
    const callers = Math.max(1, Math.round((CALLERS * list.length) / EFFICIENCY_TASKS));
    return () =>
      host.send<{ failed: number; firstFailure?: string; calls: number; cpuMsPerCreate: number[] }>('createList', {
        sessions: list,
        first: from,
        at,
        callers,
      });
  });
  const created = IN_TURN ? await inTurn(creates) : await Promise.all(creates.map((create) => create()));
  const t1 = await totals(g.hosts);
  await profile('creates', true);
  const failed = created.reduce((a, c) => a + c.failed, 0);
  const before = t0.perHost.reduce((a, s) => a + s.reminders, 0);
  const moveAt = realNow() + LEAD_MS;
  await Promise.all(g.hosts.map((h) => h.send('move', { sim: due, real: moveAt })));
  const want = EFFICIENCY_TASKS - failed;
  const deadline = performance.now() + 120_000;
  let delivered = 0;
  while (delivered < want && performance.now() < deadline) {
    await sleep(100);
    delivered = (await totals(g.hosts)).perHost.reduce((a, s) => a + s.reminders, 0) - before;
  }
  // The receipts are committed after the flush: wait until every Host is idle.
  await Promise.all(g.hosts.map((h) => h.send('idle')));
  const t2 = await totals(g.hosts);
  await profile('deliveries', false);
  const firstFailure = created.find((c) => c.firstFailure !== undefined)?.firstFailure;
  return {
    hosts,
    round,
    client,
    createMs: t1.at - t0.at,
    deliverMs: realNow() - moveAt,
    createCpuMs: t1.cpuMs - t0.cpuMs,
    deliverCpuMs: t2.cpuMs - t1.cpuMs,
    idleCpuMsPerS: idle.cpuMsPerS,
    idleStatementsPerS: idle.statementsPerS,
    statementsPerCreate: statementsPer(t0, t1, idle, EFFICIENCY_TASKS),
    statementsPerDelivery: statementsPer(t1, t2, idle, delivered),
    delivered: t2.perHost.reduce((a, s) => a + s.reminders, 0) - before,
    cpuMsPerCreate: created.map((c) => c.cpuMsPerCreate),
    failed,
    ...(firstFailure === undefined ? {} : { firstFailure }),
  };
}

export function printEfficiency(results: readonly EfficiencyFigures[]): void {
  const n = EFFICIENCY_TASKS.toLocaleString('en');
  console.log(
    `${n} one-shot creates over ${SESSIONS.toLocaleString('en')} Sessions (${CALLERS} callers split over the Hosts${IN_TURN ? ', the Hosts creating one after the other' : ''}), then their ${n} deliveries, all due at one instant; CPU of all Host processes together; round trips: statements they sent, less their idle rate; leaseMs ${LEASE_MS}; pools of ${POOL_MAX} connections. The same work ${EFFICIENCY_ROUNDS} times on the same processes: round 1 right after they started (each process's warm-up in it), the next ones after it`,
  );
  console.log('');
  console.log(
    '| round | Host processes | client sends creates to | creates (wall) | deliveries (wall) | CPU, creates | CPU, deliveries | CPU in all | idle, all Hosts (CPU; statements) | round trips per create | per delivery | delivered | failed |',
  );
  console.log('|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  const ordered = [...results].sort((a, b) => a.round - b.round);
  for (const r of ordered)
    console.log(
      `| ${r.round} | ${r.hosts} | ${r.hosts === 1 ? 'the only Host' : r.client === 'owner' ? 'the owner' : 'any Host'} | ${fmt(r.createMs / 1000, 1)} s | ${fmt(r.deliverMs / 1000, 1)} s | ${fmt(r.createCpuMs / 1000, 1)} s | ${fmt(r.deliverCpuMs / 1000, 1)} s | ${fmt((r.createCpuMs + r.deliverCpuMs) / 1000, 1)} s | ${fmt(r.idleCpuMsPerS, 0)} ms/s; ${fmt(r.idleStatementsPerS, 1)}/s | ${fmt(r.statementsPerCreate, 2)} | ${fmt(r.statementsPerDelivery, 2)} | ${r.delivered.toLocaleString('en')} | ${r.failed} |`,
    );
  console.log('');
  const cpu = (r: EfficiencyFigures) => r.createCpuMs + r.deliverCpuMs;
  for (let round = 1; round <= EFFICIENCY_ROUNDS; round++)
    for (const client of ['random', 'owner'] as const) {
      // On one Host every client sends every call to the owner: one run stands for both.
      const one = results.find((r) => r.hosts === 1 && r.round === round);
      const three = results.find((r) => r.hosts === 3 && r.client === client && r.round === round);
      if (one === undefined || three === undefined) continue;
      console.log(
        `round ${round}, creates sent to ${client === 'owner' ? 'the owner' : 'any Host'}: CPU on 3 Hosts ÷ CPU on 1 Host = ${fmt(cpu(three) / cpu(one), 2)} (creates ${fmt(three.createCpuMs / one.createCpuMs, 2)}, deliveries ${fmt(three.deliverCpuMs / one.deliverCpuMs, 2)}); goal ≤ 1.3`,
      );
    }
  console.log('');
  console.log('CPU per create of each Host process, by thousand of its creates, in ms (a process warms up over its first few thousand):');
  for (const r of ordered) {
    if (r.client === 'random' && r.hosts > 1) continue;
    const hosts = r.cpuMsPerCreate.map((xs) => xs.map((x) => fmt(x, 2)).join(' ')).join(' | ');
    console.log(`- round ${r.round}, ${r.hosts === 1 ? '1 Host' : '3 Hosts, creates sent to the owner'}: ${hosts}`);
  }
  for (const r of results)
    if (r.firstFailure !== undefined) console.log(`\n${r.hosts} Host(s), ${r.client}, round ${r.round}: first failure: ${r.firstFailure}`);
}

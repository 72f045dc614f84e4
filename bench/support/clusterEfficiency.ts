// Cluster benchmark, part 6: the work, not the speed. Two cores cannot show three Hosts running
// three times as fast; they can show whether the work grows with the Hosts. The same 10,000
// one-shot creates (over 1,000 Sessions, `callers` in flight split over the Hosts) and then their
// 10,000 deliveries (all due at one instant the parent moves the clocks to) on a cluster of 1 and
// of 3 Host processes; the client sends each create to any Host (`random`) or to the Session's
// owner (`owner`, by the documented hash and `shard_leases`). Figures: the CPU time of all Host
// processes together in each phase, and the statements they sent per create and per delivery,
// their idle rate taken off.
import { join } from 'node:path';
import type pg from 'pg';
import { realNow } from '../../test/reliability/acceleratedClock.ts';
import { envNumber } from './benchEnv.ts';
import { background, statementsPer, totals } from './clusterCounters.ts';
import type { Client } from './clusterCreate.ts';
import { ownersOf } from './clusterDb.ts';
import { LEASE_MS, POOL_MAX, SIM_START, startGroup } from './clusterHosts.ts';
import { fmt } from './domains.ts';

export const EFFICIENCY_TASKS = envNumber('CLUSTER_BENCH_CPU_TASKS', 10_000);
const SESSIONS = 1_000;
const CALLERS = 20;
/** The instant every task is due at: half an hour into the simulated day, within the passivation horizon. */
const DUE = SIM_START + 30 * 60_000;
/** How far ahead of the move command the instant is set to arrive, in real ms. */
const LEAD_MS = 400;

export interface EfficiencyFigures {
  readonly hosts: number;
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
  readonly failed: number;
  readonly firstFailure?: string;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function measureEfficiency(admin: pg.Pool, hosts: number, client: EfficiencyFigures['client']): Promise<EfficiencyFigures> {
  const g = await startGroup(admin, { mode: 'cluster', count: hosts, tag: `eff${hosts}${client}` });
  try {
    const sessions = Array.from({ length: EFFICIENCY_TASKS }, (_, i) => `e-${i % SESSIONS}`);
    const owners = client === 'owner' ? await ownersOf(admin, g.schema, sessions) : undefined;
    const lists = g.hosts.map((h, k) =>
      sessions.filter((s, i) => (owners === undefined ? i % g.hosts.length === k : owners.get(s) === h.hostId)),
    );
    // Every shard opened and every commit done before the idle rate is taken.
    await Promise.all(g.hosts.map((h) => h.send('idle')));
    const idle = await background(g.hosts);
    // CLUSTER_BENCH_PROFILE_DIR: a CPU profile of each Host process over the creates, and one over the deliveries.
    const profileDir = process.env.CLUSTER_BENCH_PROFILE_DIR;
    const profile = async (stop: string | undefined, start: boolean): Promise<void> => {
      if (profileDir === undefined) return;
      await Promise.all(
        g.hosts.map(async (h) => {
          if (stop !== undefined) await h.send('profileStop', { path: join(profileDir, `${h.hostId}-${stop}.cpuprofile`) });
          if (start) await h.send('profileStart');
        }),
      );
    };
    await profile(undefined, true);
    const t0 = await totals(g.hosts);
    let first = 0;
    const at = new Date(DUE).toISOString();
    const created = await Promise.all(
      g.hosts.map((host, k) => {
        const list = lists[k]!;
        first += list.length;
        const callers = Math.max(1, Math.round((CALLERS * list.length) / EFFICIENCY_TASKS));
        return host.send<{ failed: number; firstFailure?: string; calls: number }>('createList', {
          sessions: list,
          first: first - list.length,
          at,
          callers,
        });
      }),
    );
    const t1 = await totals(g.hosts);
    await profile('creates', true);
    const failed = created.reduce((a, c) => a + c.failed, 0);
    const moveAt = realNow() + LEAD_MS;
    await Promise.all(g.hosts.map((h) => h.send('move', { sim: DUE, real: moveAt })));
    const want = EFFICIENCY_TASKS - failed;
    const deadline = performance.now() + 120_000;
    let delivered = 0;
    while (delivered < want && performance.now() < deadline) {
      await sleep(100);
      delivered = (await totals(g.hosts)).perHost.reduce((a, s) => a + s.reminders, 0);
    }
    // The receipts are committed after the flush: wait until every Host is idle.
    await Promise.all(g.hosts.map((h) => h.send('idle')));
    const t2 = await totals(g.hosts);
    await profile('deliveries', false);
    const firstFailure = created.find((c) => c.firstFailure !== undefined)?.firstFailure;
    return {
      hosts,
      client,
      createMs: t1.at - t0.at,
      deliverMs: realNow() - moveAt,
      createCpuMs: t1.cpuMs - t0.cpuMs,
      deliverCpuMs: t2.cpuMs - t1.cpuMs,
      idleCpuMsPerS: idle.cpuMsPerS,
      idleStatementsPerS: idle.statementsPerS,
      statementsPerCreate: statementsPer(t0, t1, idle, EFFICIENCY_TASKS),
      statementsPerDelivery: statementsPer(t1, t2, idle, delivered),
      delivered: t2.perHost.reduce((a, s) => a + s.reminders, 0),
      failed,
      ...(firstFailure === undefined ? {} : { firstFailure }),
    };
  } finally {
    await g.stop();
  }
}

export function printEfficiency(results: readonly EfficiencyFigures[]): void {
  const n = EFFICIENCY_TASKS.toLocaleString('en');
  console.log(
    `${n} one-shot creates over ${SESSIONS.toLocaleString('en')} Sessions (${CALLERS} callers split over the Hosts), then their ${n} deliveries, all due at one instant; CPU of all Host processes together; round trips: statements they sent, less their idle rate; leaseMs ${LEASE_MS}; pools of ${POOL_MAX} connections`,
  );
  console.log('');
  console.log(
    '| Host processes | client sends creates to | creates (wall) | deliveries (wall) | CPU, creates | CPU, deliveries | CPU in all | idle, all Hosts (CPU; statements) | round trips per create | per delivery | delivered | failed |',
  );
  console.log('|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of results)
    console.log(
      `| ${r.hosts} | ${r.hosts === 1 ? 'the only Host' : r.client === 'owner' ? 'the owner' : 'any Host'} | ${fmt(r.createMs / 1000, 1)} s | ${fmt(r.deliverMs / 1000, 1)} s | ${fmt(r.createCpuMs / 1000, 1)} s | ${fmt(r.deliverCpuMs / 1000, 1)} s | ${fmt((r.createCpuMs + r.deliverCpuMs) / 1000, 1)} s | ${fmt(r.idleCpuMsPerS, 0)} ms/s; ${fmt(r.idleStatementsPerS, 1)}/s | ${fmt(r.statementsPerCreate, 2)} | ${fmt(r.statementsPerDelivery, 2)} | ${r.delivered.toLocaleString('en')} | ${r.failed} |`,
    );
  console.log('');
  for (const client of ['random', 'owner'] as const) {
    // On one Host every client sends every call to the owner: one run stands for both.
    const one = results.find((r) => r.hosts === 1);
    const three = results.find((r) => r.hosts === 3 && r.client === client);
    if (one === undefined || three === undefined) continue;
    const cpu = (r: EfficiencyFigures) => r.createCpuMs + r.deliverCpuMs;
    console.log(
      `creates sent to ${client === 'owner' ? 'the owner' : 'any Host'}: CPU on 3 Hosts ÷ CPU on 1 Host = ${fmt(cpu(three) / cpu(one), 2)} (creates ${fmt(three.createCpuMs / one.createCpuMs, 2)}, deliveries ${fmt(three.deliverCpuMs / one.deliverCpuMs, 2)}); goal ≤ 1.3`,
    );
  }
  for (const r of results)
    if (r.firstFailure !== undefined) console.log(`\n${r.hosts} Host(s), ${r.client}: first failure: ${r.firstFailure}`);
}

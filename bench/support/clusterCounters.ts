// What the cluster benchmark reads from its Host processes to price a workload: CPU time and
// statements sent (round trips), summed over the processes, and their rate while idle (lease
// renewals, heartbeats, polling), which is taken off a workload's count before it is divided by
// the calls or deliveries the workload made.
import type { HostChild } from './clusterProcess.ts';

/** What one Host process's `stats` answers. */
export interface HostStats {
  readonly reminders: number;
  readonly messages: number;
  /** Real instant (see `realNow`) the last flush into a Session ended. */
  readonly lastAt: number;
  readonly cpuMs: number;
  /** The most queries waiting for a pool connection at once since the last clock move. */
  readonly maxWaiting: number;
  readonly statements: number;
  readonly rssMb: number;
}

/** Sums over some Host processes, taken at one moment. */
export interface Totals {
  readonly at: number;
  readonly cpuMs: number;
  readonly statements: number;
  readonly perHost: readonly HostStats[];
}

export async function totals(hosts: readonly HostChild[]): Promise<Totals> {
  const perHost = await Promise.all(hosts.map((h) => h.send<HostStats>('stats')));
  return {
    at: performance.now(),
    cpuMs: perHost.reduce((a, s) => a + s.cpuMs, 0),
    statements: perHost.reduce((a, s) => a + s.statements, 0),
    perHost,
  };
}

/** The processes' idle rates, per second, over `ms` of doing nothing. */
export interface Background {
  readonly statementsPerS: number;
  readonly cpuMsPerS: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function background(hosts: readonly HostChild[], ms = 2_000): Promise<Background> {
  const before = await totals(hosts);
  await sleep(ms);
  const after = await totals(hosts);
  const s = (after.at - before.at) / 1000;
  return { statementsPerS: (after.statements - before.statements) / s, cpuMsPerS: (after.cpuMs - before.cpuMs) / s };
}

/** Statements per unit of work between two totals, the idle rate over the same time taken off. */
export function statementsPer(before: Totals, after: Totals, idle: Background, units: number): number {
  const extra = after.statements - before.statements - (idle.statementsPerS * (after.at - before.at)) / 1000;
  return units > 0 ? Math.max(0, extra) / units : Number.NaN;
}

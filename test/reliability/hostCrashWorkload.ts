// The generated workload of the whole-Host crash trials: a seeded stream of management calls on
// four Sessions — creates of every kind (after, at, every, daily, weekly, cron, in several zones),
// updates through the model tool and through the remote namespace (with the record the caller
// last saw as `expected`), deletes both ways, and Session stops. Every create and update carries
// a title no other call uses, so a row found on disk can be traced to the call that wrote it.
// Timings suit the accelerated clock (a real millisecond is a simulated minute): reminders fall
// due every few real milliseconds while the trial runs.
import type { CatalogEntry } from '../../src/domain/tasks/types.ts';

/** The Sessions the workload uses. */
export const WORKLOAD_SESSIONS = ['s1', 's2', 's3', 's4'] as const;

/** One call of the workload, as the child makes it and as its `attempt` line reports it. */
export type WorkloadOp =
  | { readonly op: 'create'; readonly sessionId: string; readonly args: Readonly<Record<string, unknown>> }
  | { readonly op: 'update'; readonly sessionId: string; readonly id: string; readonly args: Readonly<Record<string, unknown>> }
  | {
      readonly op: 'remoteUpdate';
      readonly sessionId: string;
      readonly id: string;
      readonly request: Readonly<Record<string, unknown>>;
    }
  | { readonly op: 'delete'; readonly sessionId: string; readonly id: string }
  | { readonly op: 'remoteDelete'; readonly sessionId: string; readonly id: string }
  | { readonly op: 'stop'; readonly sessionId: string };

/** The title a create or update writes (undefined for other calls). */
export function titleOf(op: WorkloadOp): string | undefined {
  if (op.op === 'create' || op.op === 'update') return op.args.title as string | undefined;
  if (op.op === 'remoteUpdate') return op.request.title as string | undefined;
  return undefined;
}

const ZONES = ['UTC', 'Europe/London', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe'];
const CRONS = ['0 * * * *', '15,45 * * * *', '0 */2 * * *', '30 9-17 * * 1-5', '0 0 * * *', '*/20 6-9 * * *'];
const pad = (n: number): string => String(n).padStart(2, '0');

type Rand = () => number;
const pick = <T>(rand: Rand, items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;
const int = (rand: Rand, min: number, max: number): number => min + Math.floor(rand() * (max - min + 1));

function time(rand: Rand): string {
  return `${pad(int(rand, 0, 23))}:${pad(pick(rand, [0, 15, 30, 45]))}:00`;
}

function weekdays(rand: Rand): number[] {
  const days = [1, 2, 3, 4, 5, 6, 7].filter(() => rand() < 0.4);
  return days.length === 0 ? [int(rand, 1, 7)] : days;
}

/** A timing selector of `kind` for a create, chosen at simulated time `now`. */
function selector(rand: Rand, kind: string, now: number): Record<string, unknown> {
  switch (kind) {
    case 'after':
      return { after_seconds: pick(rand, [300, 900, 1800, 3600, 7200, 21_600]) };
    case 'at':
      return { at: new Date(Math.ceil(now / 1000) * 1000 + int(rand, 30, 720) * 60_000).toISOString() };
    case 'every':
      return { every_seconds: pick(rand, [3600, 5400, 10_800, 43_200]) };
    case 'daily':
      return { daily: { time: time(rand), time_zone: pick(rand, ZONES) } };
    case 'weekly':
      return { weekly: { time: time(rand), time_zone: pick(rand, ZONES), weekdays: weekdays(rand) } };
    default:
      return { cron: { expression: pick(rand, CRONS), time_zone: pick(rand, ZONES) } };
  }
}

/** The `change` of an update: any kind but `after`. */
function change(rand: Rand, now: number): Record<string, unknown> {
  const kind = pick(rand, ['at', 'every', 'daily', 'weekly', 'cron']);
  const s = selector(rand, kind, now);
  const value = Object.values(s)[0];
  if (kind === 'at') return { kind, at: value };
  if (kind === 'every') return { kind, every_seconds: value };
  return { kind, ...(value as Record<string, unknown>) };
}

/** The next call, given the catalog as the caller last read it; `tag` makes its title unique. */
export function nextOp(rand: Rand, catalog: readonly CatalogEntry[], now: number, tag: string): WorkloadOp {
  const active = catalog.filter((entry) => entry.status === 'active');
  const crowded = catalog.length > 36;
  const roll = rand();
  const target = active.length === 0 ? undefined : pick(rand, active);
  const any = catalog.length === 0 ? undefined : pick(rand, catalog);
  if (target === undefined || roll < (crowded ? 0.1 : 0.4)) {
    const kind = pick(rand, ['after', 'at', 'every', 'daily', 'weekly', 'cron']);
    const sessionId = pick(rand, WORKLOAD_SESSIONS);
    return { op: 'create', sessionId, args: { title: `c${tag}`, prompt: `p${tag} (${kind})`, ...selector(rand, kind, now) } };
  }
  const { sessionId, record } = target;
  if (roll < 0.58) {
    const args: Record<string, unknown> = { id: record.id, title: `u${tag}` };
    if (rand() < 0.3) args.prompt = `q${tag}`;
    if (rand() < 0.6) args.change = change(rand, now);
    return { op: 'update', sessionId, id: record.id, args };
  }
  if (roll < 0.7) {
    const request: Record<string, unknown> = { sessionId, id: record.id, expected: record, title: `r${tag}` };
    if (rand() < 0.5) request.change = change(rand, now);
    return { op: 'remoteUpdate', sessionId, id: record.id, request };
  }
  if (roll < 0.84) return { op: 'delete', sessionId, id: record.id };
  if (roll < 0.95 && any !== undefined) return { op: 'remoteDelete', sessionId: any.sessionId, id: any.record.id };
  return { op: 'stop', sessionId: pick(rand, WORKLOAD_SESSIONS) };
}

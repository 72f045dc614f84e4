// Clock jumps against a brute-force reference. A service holds recurring tasks of every kind
// (every, daily, weekly, cron) in America/New_York, Europe/London, Australia/Lord_Howe and UTC —
// at times that fall into DST gaps and overlaps — plus one-shots, in three Sessions. fast-check
// drives the clock through sequences of steps: ordinary passage, wall jumps forward by minutes,
// days and years, backward by hours, and runs across a zone's next DST transition. Two clocks:
// the manual clock (timers keyed on wall time; `set` jumps) and a platform-like clock (monotonic
// timers; the wall steps under them and the service notices within `maxWaitMs`). After every
// step, each delivered reminder is checked against the project's brute-force oracle (`nextFiring`):
//   * never early: its occurrence ≤ the wall clock when it was appended, and ≥ its committed target;
//   * a real occurrence of its rule, later than any the task delivered before;
//   * the latest missed one: the rule's next occurrence after it is still in the future;
//   * none lost: once the service is idle no active task is overdue, and every committed target
//     is the rule's first occurrence after the last delivery (what the model predicts).
// With `faults`, Sessions also fail to resolve now and then (retried with backoff): a task of a
// Session whose delivery failed may stay overdue until its retry, and at the end every fault is
// cleared, the clock moves past every retry time, and nothing may be overdue any more.
import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { memoryStorage } from '../../src/adapters/memoryStorage.ts';
import { createScheduleService, type ScheduleService } from '../../src/service.ts';
import { createManualClock, type ManualClock } from '../../src/testing.ts';
import { nextFiring, type ReferenceRule } from '../support/oracle/index.ts';
import { ControlledSessions } from './controlledSessions.ts';
import { PlatformLikeClock } from './platformClock.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const YEAR = 365 * DAY;
const MAX_WAIT_MS = MINUTE;

/** The tasks each run creates: Session and `schedule_create` timing argument. */
const TASKS: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ['ny', { every_seconds: 37 * 60 }],
  ['ny', { daily: { time: '02:30:00', time_zone: 'America/New_York' } }],
  ['ny', { daily: { time: '01:30:00', time_zone: 'America/New_York' } }],
  ['ny', { weekly: { time: '02:30:00', time_zone: 'America/New_York', weekdays: [7] } }],
  ['ny', { cron: { expression: '*/20 1-2 * * *', time_zone: 'America/New_York' } }],
  ['ny', { after_seconds: 5400 }],
  ['london', { every_seconds: 86_400 }],
  ['london', { daily: { time: '01:30:00', time_zone: 'Europe/London' } }],
  ['london', { weekly: { time: '01:30:00.500', time_zone: 'Europe/London', weekdays: [3, 7] } }],
  ['london', { cron: { expression: '0,30 1-2 * * 0', time_zone: 'Europe/London' } }],
  ['lh', { every_seconds: 7 * 86_400 + 13 }],
  ['lh', { daily: { time: '02:15:00', time_zone: 'Australia/Lord_Howe' } }],
  ['lh', { weekly: { time: '01:45:00', time_zone: 'Australia/Lord_Howe', weekdays: [1, 7] } }],
  ['lh', { cron: { expression: '15 2 * * *', time_zone: 'Australia/Lord_Howe' } }],
  ['lh', { cron: { expression: '0 0 29 2 *', time_zone: 'UTC' } }],
  ['lh', { at: 'START+3d' }],
];

/** Starting points a little before DST transitions of the three zones and before a leap day. */
const STARTS = [
  '2030-03-09T12:00:00.000Z',
  '2030-03-30T12:00:00.000Z',
  '2030-04-06T00:00:00.000Z',
  '2030-10-05T00:00:00.000Z',
  '2030-10-26T12:00:00.000Z',
  '2030-11-02T12:00:00.000Z',
  '2031-12-31T20:00:00.000Z',
];
const ZONES = ['America/New_York', 'Europe/London', 'Australia/Lord_Howe'] as const;

export type Step =
  | { readonly kind: 'advance'; readonly ms: number }
  | { readonly kind: 'forward'; readonly ms: number; readonly scale: 'minutes' | 'days' | 'years' }
  | { readonly kind: 'backward'; readonly ms: number }
  | { readonly kind: 'dstEdge'; readonly zone: string; readonly beforeMs: number; readonly throughMs: number }
  /** The next `times` resolves of a Session fail (delivery is retried with backoff). */
  | { readonly kind: 'fail'; readonly sessionId: string; readonly times: number };

const jitter = fc.integer({ min: 0, max: MINUTE - 1 });
const SESSIONS = ['ny', 'london', 'lh'] as const;
const RETRY = { initialMs: 1000, maxMs: 8000 };

const failArb: fc.Arbitrary<Step> = fc
  .tuple(fc.constantFrom(...SESSIONS), fc.integer({ min: 1, max: 3 }))
  .map(([sessionId, times]) => ({ kind: 'fail' as const, sessionId, times }));

const clockStepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.tuple(fc.integer({ min: 1, max: 180 }), jitter).map(([m, j]) => ({ kind: 'advance' as const, ms: m * MINUTE + j })),
  fc
    .tuple(fc.integer({ min: 1, max: 600 }), jitter)
    .map(([m, j]) => ({ kind: 'forward' as const, ms: m * MINUTE + j, scale: 'minutes' as const })),
  fc
    .tuple(fc.integer({ min: 1, max: 40 }), jitter)
    .map(([d, j]) => ({ kind: 'forward' as const, ms: d * DAY + j, scale: 'days' as const })),
  fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 0, max: 30 * DAY })).map(([y, j]) => ({
    kind: 'forward' as const,
    ms: y * YEAR + j,
    scale: 'years' as const,
  })),
  fc.tuple(fc.integer({ min: 1, max: 48 }), jitter).map(([h, j]) => ({ kind: 'backward' as const, ms: h * HOUR + j })),
  fc
    .tuple(fc.constantFrom(...ZONES), fc.integer({ min: 0, max: 90 * MINUTE }), fc.integer({ min: 1, max: 5 * HOUR }))
    .map(([zone, beforeMs, throughMs]) => ({ kind: 'dstEdge' as const, zone, beforeMs, throughMs })),
);

const stepArb = (faults: boolean): fc.Arbitrary<Step> =>
  faults ? fc.oneof({ weight: 3, arbitrary: clockStepArb }, { weight: 1, arbitrary: failArb }) : clockStepArb;

/** What the model knows about one task. */
interface Tracked {
  readonly id: string;
  readonly sessionId: string;
  readonly kind: string;
  /** The oracle rule (wall-clock kinds), or the fixed-rate grid (every). */
  readonly oracle?: ReferenceRule;
  readonly grid?: { readonly anchor: number; readonly step: number };
  committed: number;
  active: boolean;
  lastOccurrence: number;
}

const iso = (ms: number): string => new Date(ms).toISOString();

function firstOccurrenceAfter(t: Tracked, after: number): number | null {
  if (t.grid !== undefined) {
    const { anchor, step } = t.grid;
    return anchor + (Math.floor((after - anchor) / step) + 1) * step;
  }
  if (t.oracle === undefined) return null;
  return nextFiring(t.oracle, after);
}

function isOccurrence(t: Tracked, ms: number): boolean {
  if (t.grid !== undefined) return ms >= t.grid.anchor && (ms - t.grid.anchor) % t.grid.step === 0;
  if (t.oracle !== undefined) return firstOccurrenceAfter(t, ms - 1) === ms;
  return ms === t.committed;
}

function trackedFrom(sessionId: string, view: Record<string, unknown>): Tracked {
  const id = String(view.id);
  const kind = String(view.kind);
  const committed = Date.parse(String(view.scheduledAt));
  const base = { id, sessionId, kind, committed, active: true, lastOccurrence: Number.NEGATIVE_INFINITY };
  switch (kind) {
    case 'every':
      return { ...base, grid: { anchor: committed, step: Number(view.everySeconds) * 1000 } };
    case 'daily':
      return { ...base, oracle: { kind: 'daily', time: String(view.time), timeZone: String(view.timeZone) } };
    case 'weekly':
      return {
        ...base,
        oracle: { kind: 'weekly', time: String(view.time), timeZone: String(view.timeZone), weekdays: view.weekdays as number[] },
      };
    case 'cron':
      return { ...base, oracle: { kind: 'cron', expression: String(view.expression), timeZone: String(view.timeZone) } };
    default:
      return base;
  }
}

/** Figures of a clock-jump run. */
export interface ClockJumpFigures {
  runs: number;
  steps: number;
  /** Reminders delivered (one per task per message). */
  reminders: number;
  stepsByKind: Record<string, number>;
}

type ClockKind = 'manual' | 'platform';

interface World {
  readonly svc: ScheduleService;
  readonly sessions: ControlledSessions;
  readonly now: () => number;
  readonly take: (step: Step) => Promise<void>;
  readonly overflows: () => number;
}

function nextTransition(zone: string, after: number): number {
  const next = Temporal.Instant.fromEpochMilliseconds(after).toZonedDateTimeISO(zone).getTimeZoneTransition('next');
  if (next === null) throw new Error(`no DST transition in ${zone} after ${iso(after)}`);
  return next.epochMilliseconds;
}

async function openWorld(kind: ClockKind, start: string, faults: boolean): Promise<World> {
  const manual: ManualClock | undefined = kind === 'manual' ? createManualClock(start) : undefined;
  const platform = kind === 'platform' ? new PlatformLikeClock(start) : undefined;
  const clock = manual ?? platform;
  if (clock === undefined) throw new Error('no clock');
  const sessions = new ControlledSessions(clock);
  const svc = await createScheduleService({
    sessions,
    storage: memoryStorage(),
    clock,
    config: { maxWaitMs: MAX_WAIT_MS, retry: faults ? RETRY : false },
    logger: { warn: () => undefined, error: (msg, data) => console.error(msg, data) },
  });
  clock.attach(svc);
  const take = async (step: Step): Promise<void> => {
    const now = clock.now();
    if (step.kind === 'fail') sessions.failResolve(step.sessionId, step.times);
    else if (manual !== undefined) {
      if (step.kind === 'advance') await manual.advance(step.ms);
      else if (step.kind === 'forward') await manual.set(iso(now + step.ms));
      else if (step.kind === 'backward') await manual.set(iso(now - step.ms));
      else {
        await manual.set(iso(nextTransition(step.zone, now) - step.beforeMs));
        await manual.advance(step.throughMs);
      }
    } else if (platform !== undefined) {
      if (step.kind === 'advance') await platform.elapse(step.ms);
      else if (step.kind === 'forward' || step.kind === 'backward') {
        platform.jumpWall(step.kind === 'forward' ? step.ms : -step.ms);
        await platform.elapse(MAX_WAIT_MS);
      } else {
        platform.jumpWall(nextTransition(step.zone, now) - step.beforeMs - now);
        await platform.elapse(step.throughMs + MAX_WAIT_MS);
      }
    }
    await svc.whenIdle();
  };
  return { svc, sessions, now: () => clock.now(), take, overflows: () => platform?.overflows.length ?? 0 };
}

async function createTasks(world: World, start: string): Promise<Map<string, Tracked>> {
  const tracked = new Map<string, Tracked>();
  for (const [i, [sessionId, timing]] of TASKS.entries()) {
    const args = timing.at === 'START+3d' ? { at: iso(Date.parse(start) + 3 * DAY + 17_000) } : timing;
    const view = await world.svc.callTool(sessionId, 'schedule_create', { title: `t${i}`, prompt: `p${i}`, ...args });
    if ('code' in view) throw new Error(`could not create ${JSON.stringify(args)}: ${view.message}`);
    tracked.set(view.id, trackedFrom(sessionId, { ...view }));
  }
  return tracked;
}

/** Checks the reminders appended during one step and moves the model on. */
function checkDeliveries(tracked: Map<string, Tracked>, messages: ReadonlyArray<{ keys: readonly string[]; wall: number }>): number {
  let reminders = 0;
  for (const message of messages) {
    const seen = new Set<string>();
    for (const key of message.keys) {
      const [id = '', at = ''] = key.split('@');
      const t = tracked.get(id);
      const occurrence = Date.parse(at);
      const where = `${key} appended at ${iso(message.wall)}`;
      if (t === undefined) throw new Error(`${where}: unknown task`);
      if (seen.has(id)) throw new Error(`${where}: the task appears twice in one message`);
      seen.add(id);
      if (!t.active) throw new Error(`${where}: the task had ended`);
      if (occurrence > message.wall) throw new Error(`${where}: delivered early`);
      if (occurrence < t.committed) throw new Error(`${where}: before its committed target ${iso(t.committed)}`);
      if (occurrence <= t.lastOccurrence) throw new Error(`${where}: not later than its previous delivery ${iso(t.lastOccurrence)}`);
      if (!isOccurrence(t, occurrence)) throw new Error(`${where}: not an occurrence of its rule`);
      t.lastOccurrence = occurrence;
      reminders++;
      if (t.grid === undefined && t.oracle === undefined) {
        t.active = false;
        continue;
      }
      const next = firstOccurrenceAfter(t, occurrence);
      if (next !== null && next <= message.wall) throw new Error(`${where}: a later occurrence ${iso(next)} was also due (not the latest)`);
      const after = firstOccurrenceAfter(t, Math.max(t.committed, message.wall));
      if (after === null) t.active = false;
      else t.committed = after;
    }
  }
  return reminders;
}

/**
 * After a step: the stored tasks are what the model predicts, and none is overdue — except, while
 * faults are injected, a task of a Session whose delivery failed and has not succeeded since (it
 * waits for its retry).
 */
async function checkCatalog(world: World, tracked: Map<string, Tracked>, strict: boolean): Promise<void> {
  const now = world.now();
  for (const entry of await world.svc.remote.catalog()) {
    const t = tracked.get(entry.record.id);
    if (t === undefined) throw new Error(`unexpected task ${entry.record.id}`);
    const where = `${t.kind} task ${t.id} at ${iso(now)}`;
    if ((entry.status === 'active') !== t.active)
      throw new Error(`${where}: status ${entry.status}, expected ${t.active ? 'active' : 'inactive'}`);
    if (!t.active) continue;
    if (entry.record.scheduledAt !== iso(t.committed))
      throw new Error(`${where}: target ${entry.record.scheduledAt}, expected ${iso(t.committed)}`);
    if (t.committed <= now && (strict || !world.sessions.troubled.has(t.sessionId))) {
      throw new Error(`${where}: still overdue (target ${iso(t.committed)}) although the service is idle`);
    }
  }
}

/** The forward step that outlasts every retry time: retries are keyed on the wall clock, which steps back too. */
function healingStep(steps: readonly Step[]): Step {
  let ms = 10 * MINUTE;
  for (const step of steps) {
    if (step.kind === 'backward') ms += step.ms;
    if (step.kind === 'dstEdge') ms += 2 * HOUR;
  }
  return { kind: 'forward', ms, scale: 'minutes' };
}

export interface ClockJumpOptions {
  readonly runs: number;
  readonly seed: number;
  readonly clock: ClockKind;
  readonly maxSteps?: number;
  /** Also make Sessions fail to resolve now and then; at the end every fault is cleared and all is caught up. */
  readonly faults?: boolean;
  readonly path?: string;
}

/** Runs `runs` random jump sequences on the given clock. Throws (with the counterexample) on a violation. */
export async function runClockJumps(options: ClockJumpOptions): Promise<ClockJumpFigures> {
  const figures: ClockJumpFigures = { runs: 0, steps: 0, reminders: 0, stepsByKind: {} };
  const faults = options.faults ?? false;
  const runArb = fc.tuple(fc.constantFrom(...STARTS), fc.array(stepArb(faults), { minLength: 1, maxLength: options.maxSteps ?? 10 }));
  await fc.assert(
    fc.asyncProperty(runArb, async ([start, steps]) => {
      figures.runs++;
      const world = await openWorld(options.clock, start, faults);
      try {
        const tracked = await createTasks(world, start);
        const run = async (step: Step, strict: boolean) => {
          const before = world.sessions.delivered.length;
          await world.take(step);
          figures.steps++;
          const label = step.kind === 'forward' ? `forward ${step.scale}` : step.kind;
          figures.stepsByKind[label] = (figures.stepsByKind[label] ?? 0) + 1;
          figures.reminders += checkDeliveries(tracked, world.sessions.delivered.slice(before));
          await checkCatalog(world, tracked, strict);
        };
        for (const step of steps) await run(step, !faults);
        if (faults) {
          for (const sessionId of SESSIONS) world.sessions.clear(sessionId);
          await run(healingStep(steps), true);
        }
        if (world.overflows() > 0) throw new Error('a timer was asked for more than 2^31 - 1 ms');
      } finally {
        await world.svc.close();
      }
    }),
    { numRuns: options.runs, seed: options.seed, ...(options.path === undefined ? {} : { path: options.path }) },
  );
  return figures;
}

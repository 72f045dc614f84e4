// Domain data the planning tests build their situations from: records of each kind, rows bound to
// a Session, the committed table a plan reads, and the contexts a slot hands its plan. A plan is a
// pure function of these, so each test states its stored rows, its arguments and its `now`.
import type { DeliveredReminder, DeliveryOutcome, ReplyValue, ScheduleReplyBody } from '../../machines/events.ts';
import type { RememberedCall } from '../../src/domain/tasks/rememberedCalls.ts';
import { DEFAULT_RETENTION } from '../../src/domain/tasks/retention.ts';
import { DEFAULT_RETRY, type RetryPolicy } from '../../src/domain/tasks/retry.ts';
import type { DeliveryFailure, ScheduleRecord, TaskRow } from '../../src/domain/tasks/types.ts';
import type { DeliveryCommitContext } from '../../src/planning/deliveryCommit.ts';
import type { SlotContext } from '../../src/planning/mutations.ts';
import type { SlotPlan, WritePlan } from '../../src/planning/slotPlan.ts';
import type { CommitBatch } from '../../src/ports.ts';
import { TaskTable } from '../../src/runtime/taskTable.ts';

/** The instant most situations start at. */
export const T0 = '2030-01-01T08:00:00.000Z';

export const at = (iso: string): number => Date.parse(iso);

/** Every 60 s, due a minute after T0. */
export const every = (id: string, scheduledAt = '2030-01-01T08:01:00.000Z'): ScheduleRecord => ({
  id,
  kind: 'every',
  title: `every ${id}`,
  prompt: 'p',
  scheduledAt,
  everySeconds: 60,
});

/** A one-shot ten minutes after T0. */
export const oneShot = (id: string, scheduledAt = '2030-01-01T08:10:00.000Z'): ScheduleRecord => ({
  id,
  kind: 'after',
  title: `after ${id}`,
  prompt: 'p',
  scheduledAt,
  afterSeconds: 600,
});

/** 09:00 every day in Paris (08:00Z in winter); give another `scheduledAt` for a drifted target. */
export const dailyParis = (id: string, scheduledAt = '2030-01-02T08:00:00.000Z'): ScheduleRecord => ({
  id,
  kind: 'daily',
  title: `daily ${id}`,
  prompt: 'p',
  scheduledAt,
  time: '09:00:00',
  timeZone: 'Europe/Paris',
});

/** An active row of `sessionId` (s1 unless given) holding `record`, with any other members given. */
export const active = (record: ScheduleRecord, extra: Partial<TaskRow> = {}): TaskRow => ({
  sessionId: 's1',
  status: 'active',
  record,
  ...extra,
});

/** An ended row of s1 holding `record`. */
export const ended = (record: ScheduleRecord, extra: Partial<TaskRow> = {}): TaskRow => active(record, { status: 'inactive', ...extra });

/** A failure status its task actor holds, or its row stores. */
export const failure = (extra: Partial<DeliveryFailure> = {}): DeliveryFailure => ({
  attempts: 1,
  lastAt: T0,
  stage: 'flush',
  message: 'flush failed',
  ...extra,
});

/** The committed state a plan reads: stored rows, the id counter, remembered calls, the zone data version. */
export interface Stored {
  readonly rows?: readonly TaskRow[];
  readonly nextTaskNumber?: number;
  readonly calls?: readonly RememberedCall[];
  readonly tzdata?: string;
  /** Task numbers a shared storage allocated, handed out before the local counter. */
  readonly allocated?: readonly number[];
}

/** The committed table over `stored` (the slot runner's own). */
export function table(stored: Stored = {}): TaskTable {
  const rows = new TaskTable({
    tasks: stored.rows ?? [],
    nextTaskNumber: stored.nextTaskNumber ?? 1,
    ...(stored.calls === undefined ? {} : { calls: stored.calls }),
    ...(stored.tzdata === undefined ? {} : { tzdata: stored.tzdata }),
  });
  if (stored.allocated !== undefined) rows.supplyTaskNumbers(stored.allocated);
  return rows;
}

/** A slot over `stored` at `now`: Sessions in `attempting` have a delivery in flight, `failures` are the actors' failure statuses. */
export interface Situation extends Stored {
  readonly now?: string;
  readonly attempting?: readonly string[];
  readonly failures?: Readonly<Record<string, DeliveryFailure>>;
}

export function slot(situation: Situation = {}): SlotContext {
  const attempting = new Set(situation.attempting ?? []);
  const failures = situation.failures ?? {};
  return {
    table: table(situation),
    now: at(situation.now ?? T0),
    isAttempting: (sessionId) => attempting.has(sessionId),
    failureOf: (id) => failures[id],
  };
}

/** A delivery-commit slot, with the retry policy failures go to their actors with. */
export interface CommitSituation extends Situation {
  readonly retry?: RetryPolicy | false;
}

export function commitSlot(situation: CommitSituation = {}): DeliveryCommitContext {
  const { table: rows, now, isAttempting } = slot(situation);
  return { table: rows, now, isAttempting, retention: DEFAULT_RETENTION, retry: situation.retry ?? DEFAULT_RETRY };
}

/** The reminder of `record`'s current target, acknowledged under `messageId` at `deliveredAt`. */
export const reminder = (record: ScheduleRecord, messageId: string, deliveredAt = record.scheduledAt): DeliveredReminder => ({
  id: record.id,
  occurrence: at(record.scheduledAt),
  messageId,
  deliveredAt: at(deliveredAt),
  prompt: record.prompt,
  startedRecord: record,
});

/** An attempt chosen at `now`: these reminders acknowledged, those tasks failed. */
export const outcome = (now: string, delivered: readonly DeliveredReminder[], extra: Partial<DeliveryOutcome> = {}): DeliveryOutcome => ({
  now: at(now),
  delivered,
  failedIds: [],
  unrecordableIds: [],
  ...extra,
});

/** What a plan resolves with; fails the test when it rejects or still needs an id. */
export function resolvedValue<R extends ReplyValue>(plan: SlotPlan<R>): R {
  if (plan.kind === 'create') throw new Error('a create plan answers once it has its id (withId)');
  if (!plan.reply.ok) throw new Error(`the plan rejects: ${plan.reply.error.message}`);
  return plan.reply.value;
}

/** The value a settled reply resolves with (undefined when it rejects). */
export const answerOf = <R extends ReplyValue>(reply: ScheduleReplyBody<R> | undefined): R | undefined =>
  reply?.ok === true ? reply.value : undefined;

/** The batch a plan writes; undefined for a read. */
export function batchOf(plan: SlotPlan): CommitBatch | undefined {
  if (plan.kind === 'create') throw new Error('a create plan writes once it has its id (withId)');
  return plan.kind === 'write' ? plan.batch : undefined;
}

/** The write plan `plan` is; fails the test for a read or a create. */
export function writeOf<R extends ReplyValue>(plan: SlotPlan<R>): WritePlan<R> {
  if (plan.kind !== 'write') throw new Error(`the plan is a ${plan.kind}, not a write`);
  return plan;
}

/** The `code` of the ScheduleError `run` throws (undefined when it throws none). */
export function refusalCode(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return (error as { code?: string }).code ?? `not a ScheduleError: ${String(error)}`;
  }
  return undefined;
}

/** Row members a test expects of a written row; `undefined` for a member the row must not have. */
export type Expected = { readonly [K in keyof TaskRow]?: TaskRow[K] | undefined };

/** Checks each expected member of `row`. */
export function expectMembers(row: TaskRow, expected: Expected): void {
  for (const [key, value] of Object.entries(expected)) expect(row[key as keyof TaskRow], key).toEqual(value);
}

/** The ids of the rows a plan writes. */
export const putIds = (plan: SlotPlan): string[] => (batchOf(plan)?.puts ?? []).map((row) => row.record.id);

/** The written row of `id`; fails the test when the plan does not write it. */
export function putOf(plan: SlotPlan, id: string): TaskRow {
  const row = batchOf(plan)?.puts.find((r) => r.record.id === id);
  if (row === undefined) throw new Error(`the plan writes no row ${id}`);
  return row;
}

/** A remembered call of s1, made at `calledAt`. */
export const remembered = (callId: string, calledAt: string, extra: Partial<RememberedCall> = {}): RememberedCall => ({
  sessionId: 's1',
  callId,
  operation: 'schedule_delete',
  arguments: '{"id":"sch_1"}',
  answer: { id: 'sch_1', deleted: true },
  calledAt,
  ...extra,
});

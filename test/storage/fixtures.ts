// Sample task rows of every kind for the storage tests, and fast-check arbitraries that generate
// valid rows and whole valid domains (ids `sch_<n>`, canonical cron expressions, stored zones
// including the alias Asia/Calcutta, histories whose latest receipt is `lastDelivery`), optionally
// with the run-state members (`pausedAt`, `pauseNote`, `triggeredAt` and a failure status on
// active rows; `trigger`, `missed`, `firstMissed` on receipts).
import fc from 'fast-check';
import type { DomainSnapshot } from '../../src/domain/codec/index.ts';
import type { DeliveryFailure, DeliveryHistory, DeliveryReceipt, ScheduleRecord, TaskRow } from '../../src/domain/tasks/types.ts';

export const T0 = '2030-01-01T08:00:00.000Z';

const iso = (ms: number) => new Date(ms).toISOString();
const T0_MS = Date.parse(T0);

/** A receipt numbered `n` (message id `m<n>`), delivered `n` minutes after T0. */
export const receipt = (n: number, prompt: string | undefined = 'Check the build'): DeliveryReceipt => {
  const base = { scheduledAt: iso(T0_MS + n * 60_000), deliveredAt: iso(T0_MS + n * 60_000 + 250), messageId: `m${n}` };
  return prompt === undefined ? base : { ...base, prompt };
};

/** One record of each kind, numbered `n` (id `sch_<n>`). */
export function recordOfKind(kind: ScheduleRecord['kind'], n: number): ScheduleRecord {
  const base = { id: `sch_${n}`, title: `Task ${n}`, prompt: `Do thing ${n}`, scheduledAt: iso(T0_MS + n * 3_600_000) };
  switch (kind) {
    case 'after':
      return { ...base, kind, afterSeconds: 600 };
    case 'at':
      return { ...base, kind };
    case 'every':
      return { ...base, kind, everySeconds: 3600 };
    case 'daily':
      return { ...base, kind, time: '09:30:00.500', timeZone: 'Asia/Calcutta' };
    case 'weekly':
      return { ...base, kind, time: '18:00:00', timeZone: 'Europe/London', weekdays: [1, 5] };
    case 'cron':
      return { ...base, kind, expression: '*/15,20,40 9-17 * * 0-1,3,5', timeZone: 'America/New_York' };
  }
}

export const KINDS = ['after', 'at', 'every', 'daily', 'weekly', 'cron'] as const;

/** A plain active row for task `sch_<n>` in Session `s1`. */
export const row = (n: number, kind: ScheduleRecord['kind'] = 'every', sessionId = 's1'): TaskRow => ({
  sessionId,
  status: 'active',
  record: recordOfKind(kind, n),
});

/** A row with `receipts` deliveries saved in its history (the last one is `lastDelivery`). */
export function deliveredRow(n: number, receipts: number, kind: ScheduleRecord['kind'] = 'every'): TaskRow {
  const records = Array.from({ length: receipts }, (_, i) => receipt(n * 1000 + i));
  const last = records.at(-1);
  const history: DeliveryHistory = { records, earlierRecordsUnavailable: false, earlierRecordsPruned: false };
  return last === undefined
    ? { ...row(n, kind), deliveryHistory: history }
    : { ...row(n, kind), lastDelivery: last, deliveryHistory: history };
}

// ---------------------------------------------------------------------------------------------
// fast-check arbitraries
// ---------------------------------------------------------------------------------------------

const CRONS = ['*/15 * * * *', '0 9 * * 1-5', '30 2 1 * *', '*/15,20,40 9-17 * * 0-1,3,5', '0 0 */2 * 1', '0 0 1-31/2 * 1', '* * * * *'];
const ZONES = ['UTC', 'Asia/Shanghai', 'Asia/Calcutta', 'Asia/Kolkata', 'America/New_York', 'Europe/London', 'Australia/Lord_Howe'];
const MIN_MS = Date.parse('0001-01-01T00:00:00.000Z');
const MAX_MS = Date.parse('9999-12-31T23:59:59.999Z');

const instant = fc.integer({ min: MIN_MS, max: MAX_MS }).map(iso);
const text = (max: number) =>
  fc
    .string({ minLength: 1, maxLength: max, unit: fc.constantFrom('a', 'b', 'Z', ' ', '\u00e9', '\u4e2d', '"', '\\', '\n', '\u{1F600}') })
    .map((s) => s.trim())
    .filter((s) => s.length > 0 && s.length <= max);
const time = fc
  .tuple(
    fc.integer({ min: 0, max: 23 }),
    fc.integer({ min: 0, max: 59 }),
    fc.integer({ min: 0, max: 59 }),
    fc.integer({ min: 0, max: 999 }),
  )
  .map(([h, m, s, ms]) => {
    const base = [h, m, s].map((v) => String(v).padStart(2, '0')).join(':');
    return ms === 0 ? base : `${base}.${String(ms).padStart(3, '0')}`;
  });
const weekdays = fc.subarray([1, 2, 3, 4, 5, 6, 7], { minLength: 1 });

const recordArb = (id: string): fc.Arbitrary<ScheduleRecord> => {
  const base = fc.record({ title: text(120), prompt: text(300), scheduledAt: instant });
  return fc.oneof(
    fc
      .tuple(base, fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }))
      .map(([b, afterSeconds]) => ({ id, kind: 'after' as const, ...b, afterSeconds })),
    base.map((b) => ({ id, kind: 'at' as const, ...b })),
    fc
      .tuple(base, fc.integer({ min: 60, max: Number.MAX_SAFE_INTEGER }))
      .map(([b, everySeconds]) => ({ id, kind: 'every' as const, ...b, everySeconds })),
    fc.tuple(base, time, fc.constantFrom(...ZONES)).map(([b, t, timeZone]) => ({ id, kind: 'daily' as const, ...b, time: t, timeZone })),
    fc
      .tuple(base, time, fc.constantFrom(...ZONES), weekdays)
      .map(([b, t, timeZone, days]) => ({ id, kind: 'weekly' as const, ...b, time: t, timeZone, weekdays: days })),
    fc
      .tuple(base, fc.constantFrom(...CRONS), fc.constantFrom(...ZONES))
      .map(([b, expression, timeZone]) => ({ id, kind: 'cron' as const, ...b, expression, timeZone })),
  );
};

const plainReceiptArb = (messageId: string): fc.Arbitrary<DeliveryReceipt> =>
  fc
    .record({ scheduledAt: instant, deliveredAt: instant, prompt: fc.option(text(100), { nil: undefined }) })
    .map(({ prompt, ...r }) => (prompt === undefined ? { ...r, messageId } : { ...r, messageId, prompt }));

/** Two distinct instants, earlier first. */
const orderedInstants = fc
  .tuple(fc.integer({ min: MIN_MS, max: MAX_MS }), fc.integer({ min: MIN_MS, max: MAX_MS }))
  .filter(([a, b]) => a !== b)
  .map(([a, b]) => [iso(Math.min(a, b)), iso(Math.max(a, b))] as const);

/** A receipt that may be a run-now delivery and may have coalesced missed occurrences (`firstMissed` before `scheduledAt`). */
const runReceiptArb = (messageId: string): fc.Arbitrary<DeliveryReceipt> =>
  fc
    .tuple(
      plainReceiptArb(messageId),
      fc.boolean(),
      fc.option(fc.tuple(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), orderedInstants), { nil: undefined }),
    )
    .map(([r, manual, coalesced]) => {
      const trigger = manual ? { trigger: 'manual' as const } : {};
      if (coalesced === undefined) return { ...r, ...trigger };
      const [missed, [firstMissed, scheduledAt]] = coalesced;
      return { ...r, scheduledAt, ...trigger, missed, firstMissed };
    });

const deliveryArb = (
  receiptArb: (messageId: string) => fc.Arbitrary<DeliveryReceipt>,
): fc.Arbitrary<Pick<TaskRow, 'lastDelivery' | 'deliveryHistory'>> =>
  fc
    .tuple(
      fc.integer({ min: 0, max: 4 }),
      fc.nat(),
      fc.boolean(),
      fc.constantFrom(undefined, true, false),
      fc.constantFrom('history', 'lastOnly', 'none'),
    )
    .chain(([count, seed, unavailable, pruned, shape]) =>
      fc.tuple(...Array.from({ length: count }, (_, i) => receiptArb(`msg-${seed}-${i}`))).map((receipts) => {
        const last = receipts.at(-1);
        if (shape === 'none' || (shape === 'lastOnly' && last === undefined)) return {};
        if (shape === 'lastOnly' && last !== undefined) return { lastDelivery: last };
        const history: DeliveryHistory =
          pruned === undefined
            ? { records: receipts, earlierRecordsUnavailable: unavailable }
            : { records: receipts, earlierRecordsUnavailable: unavailable, earlierRecordsPruned: pruned };
        return last === undefined ? { deliveryHistory: history } : { lastDelivery: last, deliveryHistory: history };
      }),
    );

/** A failure status: any stage, a message up to the cap (any text), a next retry or none. */
const failureArb: fc.Arbitrary<DeliveryFailure> = fc
  .tuple(
    fc.integer({ min: 1, max: 1_000_000 }),
    instant,
    fc.constantFrom('resolve' as const, 'followup' as const, 'flush' as const, 'commit' as const),
    fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 40 }), fc.constant('x'.repeat(2000))),
    fc.option(instant, { nil: undefined }),
  )
  .map(([attempts, lastAt, stage, message, nextRetryAt]) => ({
    attempts,
    lastAt,
    stage,
    message,
    ...(nextRetryAt === undefined ? {} : { nextRetryAt }),
  }));

/** `pausedAt` (maybe with a pause note), `triggeredAt` and a failure status, each maybe present, for an active row. */
const runStateArb: fc.Arbitrary<Pick<TaskRow, 'pausedAt' | 'pauseNote' | 'triggeredAt' | 'failure'>> = fc
  .tuple(
    fc.option(instant, { nil: undefined }),
    fc.option(fc.string({ unit: 'binary', minLength: 1, maxLength: 500 }), { nil: undefined }),
    fc.option(instant, { nil: undefined }),
    fc.option(failureArb, { nil: undefined }),
  )
  .map(([pausedAt, pauseNote, triggeredAt, failure]) => ({
    ...(pausedAt === undefined ? {} : { pausedAt }),
    ...(pausedAt === undefined || pauseNote === undefined ? {} : { pauseNote }),
    ...(triggeredAt === undefined ? {} : { triggeredAt }),
    ...(failure === undefined ? {} : { failure }),
  }));

/** A valid row for task id `id`; with `runState`, active rows may be paused or run now and receipts carry the run members. */
export const rowArb = (id: string, runState = false): fc.Arbitrary<TaskRow> => {
  const base = fc.tuple(
    fc.constantFrom('s1', 'session-2', 'S:3'),
    fc.constantFrom('active' as const, 'inactive' as const),
    recordArb(id),
    deliveryArb(runState ? runReceiptArb : plainReceiptArb),
  );
  if (!runState) return base.map(([sessionId, status, record, delivery]) => ({ sessionId, status, record, ...delivery }));
  return fc
    .tuple(base, runStateArb)
    .map(([[sessionId, status, record, delivery], run]) =>
      status === 'active' ? { sessionId, status, record, ...run, ...delivery } : { sessionId, status, record, ...delivery },
    );
};

/** A valid domain: up to `maxTasks` rows with distinct ids and a consistent counter (run-state members with `runState`). */
export const domainArb = (maxTasks = 8, runState = false): fc.Arbitrary<DomainSnapshot> =>
  fc.uniqueArray(fc.integer({ min: 1, max: 10_000 }), { maxLength: maxTasks }).chain((numbers) =>
    fc
      .tuple(fc.tuple(...numbers.map((n) => rowArb(n % 3 === 0 ? `task-${n}` : `sch_${n}`, runState))), fc.nat({ max: 50 }))
      .map(([tasks, extra]) => {
        const largest = Math.max(0, ...tasks.map((t) => (t.record.id.startsWith('sch_') ? Number(t.record.id.slice(4)) : 0)));
        return { tasks, nextTaskNumber: largest + 1 + extra };
      }),
  );

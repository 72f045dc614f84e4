// The domain codec: any valid domain encodes and decodes to itself (fast-check, fixed seed), the
// encoding is deterministic and canonical, rows without status read as active, stored targets
// and zone aliases are kept, and journal batch lines round-trip the same way — rows that are
// paused or await a run-now delivery and receipts of run-now or coalesced deliveries included,
// also through delivery deltas (which clear a failure status and keep a pause note).
import fc from 'fast-check';
import {
  applyDeliveryDelta,
  decodeBatch,
  decodeDeliveryDelta,
  decodeDocument,
  decodeDocumentText,
  deliveryDeltaOf,
  encodeBatch,
  encodeDeliveryDelta,
  encodeDocument,
  encodeRecord,
  encodeRow,
} from '../../src/domain/codec/index.ts';
import { isCanonicalInstantText } from '../../src/domain/codec/instantText.ts';
import { ScheduleError } from '../../src/domain/errors.ts';
import { withDelivery } from '../../src/domain/tasks/retention.ts';
import type { DeliveryFailure, DeliveryReceipt, TaskRow } from '../../src/domain/tasks/types.ts';
import { parseCanonicalInstant } from '../../src/domain/time/instant.ts';
import { deliveredRow, domainArb, receipt, row, rowArb } from './fixtures.ts';

const SEED = 20300101;
const T_EARLY = '2030-01-01T07:00:00.000Z';

describe('domain codec', () => {
  it('round trip: any valid domain encodes and decodes to itself, and re-encodes to the same text', () => {
    fc.assert(
      fc.property(domainArb(), (domain) => {
        const text = encodeDocument(domain);
        const decoded = decodeDocumentText(text);
        expect(decoded).toEqual(domain);
        expect(encodeDocument(decoded)).toBe(text);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('round trip: a journal batch line decodes to the batch it encodes', () => {
    fc.assert(
      fc.property(
        fc.tuple(rowArb('sch_1'), rowArb('other-2')),
        fc.option(fc.integer({ min: 3, max: 99 }), { nil: undefined }),
        ([a, b], next) => {
          const batch =
            next === undefined ? { puts: [a, b], deletes: ['sch_7'] } : { puts: [a, b], deletes: ['sch_7'], nextTaskNumber: next };
          expect(decodeBatch(JSON.parse(encodeBatch(batch)), 'line 1')).toEqual(batch);
        },
      ),
      { seed: SEED, numRuns: 100 },
    );
  });

  it('encoding fixes key order whatever order the input had', () => {
    const scrambled = {
      record: {
        scheduledAt: row(1).record.scheduledAt,
        everySeconds: 3600,
        prompt: 'Do thing 1',
        title: 'Task 1',
        kind: 'every',
        id: 'sch_1',
      },
      sessionId: 's1',
    };
    const text = encodeDocument(decodeDocument({ tasks: [scrambled], version: 1 }));
    expect(text).toBe(
      '{"version":1,"nextTaskNumber":2,"tasks":[\n' +
        '{"sessionId":"s1","status":"active","record":{"id":"sch_1","kind":"every","title":"Task 1","prompt":"Do thing 1","scheduledAt":"2030-01-01T09:00:00.000Z","everySeconds":3600}}\n' +
        ']}\n',
    );
    expect(encodeDocument({ tasks: [], nextTaskNumber: 1 })).toBe('{"version":1,"nextTaskNumber":1,"tasks":[]}\n');
  });

  it('nextTaskNumber: absent derives from the largest sch_<n>; present it is kept', () => {
    expect(
      decodeDocument({ version: 1, tasks: [row(41), { ...row(2), record: { ...row(2).record, id: 'custom-900' } }] }).nextTaskNumber,
    ).toBe(42);
    expect(decodeDocument({ version: 1, tasks: [] }).nextTaskNumber).toBe(1);
    expect(decodeDocument({ version: 1, nextTaskNumber: 100, tasks: [row(41)] }).nextTaskNumber).toBe(100);
  });

  it('a repeated task id is refused naming the task, small or large task number or another id; the counter follows sch_<n> only', () => {
    const withId = (n: number, id: string) => ({ ...row(n), record: { ...row(n).record, id } });
    for (const id of ['sch_7', 'sch_9007199254740991', 'sch_20000000', 'custom-1']) {
      const error = (() => {
        try {
          decodeDocument({ version: 1, tasks: [row(1), withId(2, id), row(3), withId(4, id)] });
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(ScheduleError);
      expect(error).toMatchObject({ code: 'corrupt_schedule_log' });
      expect((error as Error).message).toContain(`task ${JSON.stringify(id)} (tasks[3]): record.id repeats the id of an earlier task`);
    }
    const ids = ['sch_20000000', 'sch_0', 'sch_01', 'sch_12345678901234567', 'sch_9007199254740993', 'SCH_5', 'sch_5x', 'sch_'];
    const tasks = ids.map((id, i) => withId(i + 1, id));
    expect(decodeDocument({ version: 1, tasks }).nextTaskNumber).toBe(20000001);
    expect(decodeDocument({ version: 1, tasks: tasks.slice(1) }).nextTaskNumber).toBe(1);
  });

  it('decoding never recomputes a target: a daily target off its rule is kept as stored', () => {
    const stored = { ...row(1, 'daily'), record: { ...row(1, 'daily').record, scheduledAt: '2031-02-03T04:05:06.789Z' } };
    expect(decodeDocument({ version: 1, tasks: [stored] }).tasks[0]).toEqual(stored);
  });

  it('the fast instant check accepts exactly what parseCanonicalInstant accepts', () => {
    const MIN = Date.parse('0001-01-01T00:00:00.000Z');
    const MAX = Date.parse('9999-12-31T23:59:59.999Z');
    const near = fc.integer({ min: MIN - 86_400_000, max: MAX + 86_400_000 }).map((ms) => new Date(ms).toISOString());
    const mutated = fc
      .tuple(near, fc.nat({ max: 23 }), fc.constantFrom('0', '1', '2', '3', '9', 'Z', '-', '+', ' '))
      .map(([text, index, char]) => text.slice(0, index) + char + text.slice(index + 1));
    const fields = fc
      .tuple(
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        fc.integer({ min: 0, max: 24 }),
        fc.integer({ min: 0, max: 60 }),
      )
      .map(([y, mo, d, h, mi]) => {
        const p = (v: number, n = 2) => String(v).padStart(n, '0');
        return `${p(y, 4)}-${p(mo)}-${p(d)}T${p(h)}:${p(mi)}:${p(mi)}.${p(y % 1000, 3)}Z`;
      });
    fc.assert(
      fc.property(fc.oneof(near, mutated, fields, fc.string()), (text) => {
        expect(isCanonicalInstantText(text)).toBe(parseCanonicalInstant(text) !== null);
      }),
      { seed: SEED, numRuns: 20_000 },
    );
    for (const text of [
      '2024-02-29T00:00:00.000Z',
      '2023-02-29T00:00:00.000Z',
      '1900-02-29T00:00:00.000Z',
      '2000-02-29T00:00:00.000Z',
      '0000-01-01T00:00:00.000Z',
    ]) {
      expect(isCanonicalInstantText(text)).toBe(parseCanonicalInstant(text) !== null);
    }
  });

  it('round trip: domains with paused and run-now rows and run-now or coalesced receipts encode and decode to themselves', () => {
    fc.assert(
      fc.property(domainArb(8, true), (domain) => {
        const text = encodeDocument(domain);
        const decoded = decodeDocumentText(text);
        expect(decoded).toEqual(domain);
        expect(encodeDocument(decoded)).toBe(text);
      }),
      { seed: SEED, numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.tuple(rowArb('sch_1', true), rowArb('other-2', true)), ([a, b]) => {
        const batch = { puts: [a, b], deletes: [] };
        expect(decodeBatch(JSON.parse(encodeBatch(batch)), 'line 1')).toEqual(batch);
      }),
      { seed: SEED, numRuns: 100 },
    );
  });

  it('the run-state members are written in the fixed order: pausedAt and triggeredAt after record, receipt members after the prompt', () => {
    const STORED_M2 = { scheduledAt: '2030-01-01T08:02:00.000Z', deliveredAt: '2030-01-01T08:02:00.250Z', messageId: 'm2' };
    const coalesced: DeliveryReceipt = {
      ...receipt(2, 'Do thing 1'),
      trigger: 'manual',
      missed: 3,
      firstMissed: '2030-01-01T07:00:00.000Z',
    };
    const stored = {
      deliveryHistory: {
        earlierRecordsUnavailable: false,
        records: [{ firstMissed: coalesced.firstMissed, missed: 3, trigger: 'manual', ...STORED_M2, promptRef: 'record' }],
      },
      lastDelivery: { missed: 3, firstMissed: coalesced.firstMissed, trigger: 'manual', promptRef: 'record', ...STORED_M2 },
      triggeredAt: '2030-01-01T08:30:00.000Z',
      record: row(1).record,
      pausedAt: '2030-01-01T08:10:00.000Z',
      sessionId: 's1',
    };
    const decoded = decodeDocument({ version: 1, tasks: [stored] }).tasks[0] as TaskRow;
    expect(decoded).toEqual({
      sessionId: 's1',
      status: 'active',
      record: row(1).record,
      pausedAt: '2030-01-01T08:10:00.000Z',
      triggeredAt: '2030-01-01T08:30:00.000Z',
      lastDelivery: coalesced,
      deliveryHistory: { records: [coalesced], earlierRecordsUnavailable: false },
    });
    const receiptText =
      '{"scheduledAt":"2030-01-01T08:02:00.000Z","deliveredAt":"2030-01-01T08:02:00.250Z","messageId":"m2","promptRef":"record","trigger":"manual","missed":3,"firstMissed":"2030-01-01T07:00:00.000Z"}';
    expect(encodeRow(decoded)).toBe(
      `{"sessionId":"s1","status":"active","record":${JSON.stringify(encodeRecord(row(1).record))},` +
        `"pausedAt":"2030-01-01T08:10:00.000Z","triggeredAt":"2030-01-01T08:30:00.000Z",` +
        `"lastDelivery":${receiptText},"deliveryHistory":{"records":[${receiptText}],"earlierRecordsUnavailable":false}}`,
    );
    // Without them a row encodes exactly as before.
    const plain = deliveredRow(3, 1);
    expect(encodeRow(plain)).toBe(
      `{"sessionId":"s1","status":"active","record":${JSON.stringify(encodeRecord(plain.record))},` +
        '"lastDelivery":{"scheduledAt":"2030-01-03T10:00:00.000Z","deliveredAt":"2030-01-03T10:00:00.250Z","messageId":"m3000","prompt":"Check the build"},' +
        '"deliveryHistory":{"records":[{"scheduledAt":"2030-01-03T10:00:00.000Z","deliveredAt":"2030-01-03T10:00:00.250Z","messageId":"m3000","prompt":"Check the build"}],"earlierRecordsUnavailable":false,"earlierRecordsPruned":false}}',
    );
  });
});

describe('delivery deltas with the run-state members', () => {
  const LIMITS = { days: 30, records: 3 };
  const STORED_FAILURE: DeliveryFailure = {
    attempts: 3,
    lastAt: '2030-01-01T08:01:03.000Z',
    stage: 'flush',
    message: 'fake Session s1: flush failed',
  };
  const through = (base: TaskRow, next: TaskRow): TaskRow => {
    const delta = deliveryDeltaOf(base, next);
    if (delta === undefined) throw new Error('expected a delta');
    const decoded = decodeDeliveryDelta(JSON.parse(JSON.stringify(encodeDeliveryDelta(delta))), 'line 2', 'deliveries[0]');
    return applyDeliveryDelta(base, decoded, 'line 2', 'deliveries[0]');
  };

  it('a delivery of a paused row with coalesced and run-now receipts round-trips through a delta, keeping pausedAt', () => {
    let current: TaskRow = { ...deliveredRow(4, 3), pausedAt: '2030-01-01T08:00:00.000Z' };
    for (let k = 0; k < 4; k++) {
      const base = current;
      const r = receipt(4100 + k, k % 2 === 0 ? 'Do thing 4' : 'Check the build');
      const withMembers: DeliveryReceipt =
        k % 2 === 0 ? { ...r, missed: k + 1, firstMissed: '2030-01-01T08:00:00.000Z' } : { ...r, trigger: 'manual' };
      const next = withDelivery(base, withMembers, LIMITS);
      current = { ...next, record: { ...next.record, scheduledAt: `2030-03-0${k + 1}T08:00:00.000Z` } };
      const replayed = through(base, current);
      expect(replayed).toEqual(current);
      expect(encodeRow(replayed)).toBe(encodeRow(current));
    }
    expect(current.pausedAt).toBe('2030-01-01T08:00:00.000Z');
    expect(current.deliveryHistory?.records.map((r) => r.trigger ?? r.missed)).toEqual(['manual', 3, 'manual']);
  });

  it('the delivery that clears a failure status is a delta, and replaying it clears the status', () => {
    const failing: TaskRow = { ...deliveredRow(4, 2), failure: STORED_FAILURE };
    const { failure: _cleared, ...delivered } = withDelivery(failing, receipt(4100), LIMITS);
    const replayed = through(failing, delivered);
    expect(replayed).toEqual(delivered);
    expect(replayed.failure).toBeUndefined();
  });

  it('a row that still carries a failure status after the delivery is no delta', () => {
    const failing: TaskRow = { ...deliveredRow(5, 2), failure: STORED_FAILURE };
    expect(deliveryDeltaOf(failing, withDelivery(failing, receipt(5100), LIMITS))).toBeUndefined();
  });

  it('a delivery of a paused row keeps its note through a delta; setting or clearing the note is no delta', () => {
    const paused: TaskRow = { ...deliveredRow(6, 1), pausedAt: '2030-01-01T08:00:00.000Z', pauseNote: 'Vendor outage' };
    const delivered = withDelivery(paused, receipt(6100), LIMITS);
    expect(through(paused, delivered)).toEqual(delivered);
    const { pauseNote: _dropped, ...withoutNote } = delivered;
    expect(deliveryDeltaOf(paused, withoutNote)).toBeUndefined();
    expect(deliveryDeltaOf(paused, { ...delivered, pauseNote: 'Another reason' })).toBeUndefined();
  });

  it('a delivery that sets or clears pausedAt or triggeredAt is no delta (the journal writes the whole row)', () => {
    const base: TaskRow = { ...deliveredRow(5, 2), triggeredAt: '2030-01-01T09:00:00.000Z' };
    const delivered = withDelivery(base, { ...receipt(5100), trigger: 'manual' }, LIMITS);
    const { triggeredAt: _cleared, ...runNow } = delivered;
    expect(deliveryDeltaOf(base, runNow)).toBeUndefined();
    expect(deliveryDeltaOf(base, { ...delivered, pausedAt: '2030-01-01T09:30:00.000Z' })).toBeUndefined();
    expect(deliveryDeltaOf(base, delivered)).toBeDefined();
    const batch = { puts: [runNow], deletes: [] };
    expect(decodeBatch(JSON.parse(encodeBatch(batch)), 'line 3')).toEqual(batch);
  });

  it('a delta that ends a paused row, or carries a bad coalesced receipt, is refused', () => {
    const base: TaskRow = { ...deliveredRow(6, 1), pausedAt: '2030-01-01T09:00:00.000Z' };
    const stored = { id: 'sch_6', after: 'm6000', pruned: 0, receipts: [receipt(6100)], status: 'inactive' };
    const ended = decodeDeliveryDelta(stored, 'line 4', 'deliveries[0]');
    expect(() => applyDeliveryDelta(base, ended, 'line 4', 'deliveries[0]')).toThrow(
      /deliveries\[0\]\.status ends task "sch_6", whose row carries pausedAt/,
    );
    const bad = { id: 'sch_6', after: 'm6000', pruned: 0, receipts: [{ ...receipt(6100), missed: 0, firstMissed: T_EARLY }] };
    const error = (() => {
      try {
        decodeDeliveryDelta(bad, 'line 5', 'deliveries[0]');
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ScheduleError);
    expect(error).toMatchObject({ code: 'corrupt_schedule_log' });
    expect((error as Error).message).toContain('deliveries[0].receipts[0].missed');
  });
});

// Delivery history retention (docs/management.md): pruning by age from each receipt's deliveredAt and by the
// newest-records cap on append, the appended receipt always kept, earlierRecordsPruned set for
// good; and paging through history for the remote `history` call.
import fc from 'fast-check';
import { historyPage } from '../../src/domain/reads/historyPage.ts';
import { appendReceipt, DEFAULT_RETENTION, emptyHistory, historyOfLegacyRow, withDelivery } from '../../src/domain/tasks/retention.ts';
import type { DeliveryHistory, DeliveryReceipt } from '../../src/domain/tasks/types.ts';

const DAY = 86_400_000;
const BASE = Date.parse('2030-01-01T00:00:00.000Z');
/** Receipt `m<n>` delivered `day` days after BASE. */
const r = (n: number, day = n): DeliveryReceipt => {
  const at = new Date(BASE + day * DAY).toISOString();
  return { scheduledAt: at, deliveredAt: at, messageId: `m${n}`, prompt: 'p' };
};
const ids = (history: { records: readonly DeliveryReceipt[] }) => history.records.map((x) => x.messageId);
const historyOf = (...receipts: DeliveryReceipt[]): DeliveryHistory => ({
  records: receipts,
  earlierRecordsUnavailable: false,
  earlierRecordsPruned: false,
});

describe('appendReceipt', () => {
  it('appends to a new task’s empty history without pruning', () => {
    const h = appendReceipt(emptyHistory(), r(1), DEFAULT_RETENTION);
    expect(h).toEqual({ records: [r(1)], earlierRecordsUnavailable: false, earlierRecordsPruned: false });
  });

  it('prunes receipts delivered more than `days` before the appended one; exactly `days` is kept', () => {
    const h = appendReceipt(historyOf(r(1, 0), r(2, 5), r(3, 10)), r(4, 35), { days: 30, records: 200 });
    expect(ids(h)).toEqual(['m2', 'm3', 'm4']);
    expect(h.earlierRecordsPruned).toBe(true);
  });

  it('prunes by age exactly as comparing epoch ms would, at any cutoff — in range, before year 1 or fractional (fast-check)', () => {
    const MIN = Date.parse('0001-01-01T00:00:00.000Z');
    const MAX = Date.parse('9999-12-31T23:59:59.999Z');
    const instant = fc.integer({ min: MIN, max: MAX });
    fc.assert(
      fc.property(fc.array(instant, { maxLength: 8 }), instant, fc.constantFrom(0.5, 1, 30, 36_500, 1e9), (times, newest, days) => {
        const receipt = (ms: number, n: number): DeliveryReceipt => {
          const at = new Date(ms).toISOString();
          return { scheduledAt: at, deliveredAt: at, messageId: `m${n}` };
        };
        const saved = times.map(receipt);
        const appended = receipt(newest, times.length);
        const cutoff = newest - days * DAY;
        const expected = [...saved.filter((x) => Date.parse(x.deliveredAt) >= cutoff), appended];
        expect(appendReceipt(historyOf(...saved), appended, { days, records: 200 }).records).toEqual(expected);
      }),
      { seed: 20261204, numRuns: 500 },
    );
  });

  it('keeps only the newest `records` receipts, the appended one included', () => {
    const h = appendReceipt(historyOf(r(1), r(2), r(3), r(4)), r(5), { days: 365, records: 3 });
    expect(ids(h)).toEqual(['m3', 'm4', 'm5']);
    expect(h.earlierRecordsPruned).toBe(true);
  });

  it('the appended receipt always survives, even with a cap of one or a clock that went backwards', () => {
    expect(ids(appendReceipt(historyOf(r(1), r(2)), r(3), { days: 30, records: 1 }))).toEqual(['m3']);
    const backwards = appendReceipt(historyOf(r(1, 40), r(2, 50)), r(3, 0), { days: 30, records: 200 });
    expect(ids(backwards)).toEqual(['m1', 'm2', 'm3']);
    expect(backwards.earlierRecordsPruned).toBe(false);
  });

  it('earlierRecordsPruned stays true once set; an unconfirmed (absent) flag stays absent when nothing is pruned', () => {
    const pruned = appendReceipt(historyOf(r(1), r(2)), r(3), { days: 30, records: 2 });
    const later = appendReceipt(pruned, r(4), { days: 30, records: 200 });
    expect(later.earlierRecordsPruned).toBe(true);
    const unconfirmed = appendReceipt({ records: [r(1)], earlierRecordsUnavailable: false }, r(2), DEFAULT_RETENTION);
    expect(unconfirmed).toEqual({ records: [r(1), r(2)], earlierRecordsUnavailable: false });
  });

  it('a row without saved history keeps its lastDelivery (without prompt) and the unavailable flag', () => {
    const last = r(1);
    const h = appendReceipt(undefined, r(2), DEFAULT_RETENTION, last);
    expect(h).toEqual({
      records: [{ scheduledAt: last.scheduledAt, deliveredAt: last.deliveredAt, messageId: 'm1' }, r(2)],
      earlierRecordsUnavailable: true,
    });
    expect(appendReceipt(undefined, r(2), DEFAULT_RETENTION)).toEqual({ records: [r(2)], earlierRecordsUnavailable: false });
  });

  it('withDelivery sets lastDelivery and appends, keeping the rest of the row', () => {
    const row = { sessionId: 's1', deliveryHistory: historyOf(r(1)), lastDelivery: r(1) };
    expect(withDelivery(row, r(2), DEFAULT_RETENTION)).toEqual({
      sessionId: 's1',
      lastDelivery: r(2),
      deliveryHistory: historyOf(r(1), r(2)),
    });
  });
});

describe('historyPage', () => {
  const retention = { days: 30, records: 200 };
  const row = { lastDelivery: r(5), deliveryHistory: historyOf(r(1), r(2), r(3), r(4), r(5)) };

  it('pages newest first with an exclusive cursor; nextBefore only while older records remain', () => {
    const first = historyPage(row, { limit: 2 }, retention);
    expect(first).toEqual({
      records: [r(5), r(4)],
      nextBefore: 'm4',
      earlierRecordsUnavailable: false,
      earlierRecordsPruned: false,
      retention,
    });
    const second = historyPage(row, { limit: 2, before: first.nextBefore }, retention);
    expect(ids(second)).toEqual(['m3', 'm2']);
    expect(second.nextBefore).toBe('m2');
    const third = historyPage(row, { limit: 2, before: 'm2' }, retention);
    expect(ids(third)).toEqual(['m1']);
    expect(third).not.toHaveProperty('nextBefore');
    const empty = historyPage(row, { limit: 2, before: 'm1' }, retention);
    expect(empty.records).toEqual([]);
    expect(empty).not.toHaveProperty('nextBefore');
  });

  it('orders by append order, not by time', () => {
    const shuffled = { lastDelivery: r(2, 1), deliveryHistory: historyOf(r(1, 9), r(2, 1)) };
    expect(ids(historyPage(shuffled, { limit: 10 }, retention))).toEqual(['m2', 'm1']);
  });

  it('exactly `limit` records left gives no nextBefore', () => {
    expect(historyPage(row, { limit: 5 }, retention)).not.toHaveProperty('nextBefore');
    expect(historyPage(row, { limit: 4 }, retention).nextBefore).toBe('m2');
  });

  it.each([0, 101, 1.5, '10', undefined, null, Number.NaN])('limit %j is invalid_rule', (limit) => {
    expect(() => historyPage(row, { limit }, retention)).toThrow(expect.objectContaining({ code: 'invalid_rule' }));
  });

  it.each(['m9', '', 42])('an unknown cursor %j is delivery_cursor_not_found', (before) => {
    expect(() => historyPage(row, { limit: 10, before }, retention)).toThrow(
      expect.objectContaining({ code: 'delivery_cursor_not_found' }),
    );
  });

  it('a row without saved history exposes only its lastDelivery, without prompt, and the unavailable flag', () => {
    const page = historyPage({ lastDelivery: r(7) }, { limit: 10 }, retention);
    expect(page).toEqual({ records: [historyOfLegacyRow(r(7)).records[0]], earlierRecordsUnavailable: true, retention });
    expect(page.records[0]).not.toHaveProperty('prompt');
    expect(historyPage({}, { limit: 10 }, retention)).toEqual({ records: [], earlierRecordsUnavailable: false, retention });
  });

  it('reads never prune: a page over the limits shows everything saved', () => {
    expect(historyPage(row, { limit: 100 }, { days: 1, records: 1 }).records).toHaveLength(5);
  });
});

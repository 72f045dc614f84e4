// A put that only records a delivery on top of the row a storage holds is checked by what it adds:
// the prepared row equals the whole-row decode's, shares the stored row's kept receipts, and every
// put that the whole-row decode refuses is refused the same way.
import fc from 'fast-check';
import { DomainState, prepareBatch, type StoredRows } from '../../src/adapters/domainState.ts';
import { memoryStorage } from '../../src/adapters/memoryStorage.ts';
import { applyDelivery } from '../../src/domain/tasks/deliveryRow.ts';
import type { DeliveryReceipt, TaskRow } from '../../src/domain/tasks/types.ts';
import { row as sampleRow } from './fixtures.ts';

const RETENTION = { days: 3650, records: 200 };
const T0 = Date.parse('2030-01-01T08:00:00.000Z');

/** `base` after one more delivery, as the service's commit planning writes it. */
function delivered(base: TaskRow, n: number, messageId = `m${n}`): TaskRow {
  const occurrence = T0 + n * 600_000;
  const reminder = { occurrence, messageId, deliveredAt: occurrence + 5, prompt: base.record.prompt, startedRecord: base.record };
  return applyDelivery(base, reminder, occurrence + 1, RETENTION);
}

/** A stored row with `count` deliveries, and the storage view holding it. */
function stored(count: number): { readonly state: DomainState; readonly row: TaskRow; readonly of: StoredRows } {
  let current = sampleRow(1);
  for (let n = 0; n < count; n++) current = delivered(current, n);
  const state = new DomainState();
  state.apply(prepareBatch({ puts: [current], deletes: [] }));
  return { state, row: current, of: state };
}

/** The outcome of preparing one put: the row kept, or the refusal's code and message. */
function outcome(put: TaskRow, of?: StoredRows): { readonly row: TaskRow } | { readonly code: string; readonly message: string } {
  try {
    return { row: prepareBatch({ puts: [put], deletes: [] }, of).puts[0]! };
  } catch (error) {
    const { code, message } = error as { code: string; message: string };
    return { code, message };
  }
}

type Change = (row: TaskRow) => TaskRow;
const history = (row: TaskRow) => row.deliveryHistory!;
const withLatest = (row: TaskRow, change: (receipt: DeliveryReceipt) => unknown): TaskRow => {
  const records = history(row).records;
  const latest = change(records.at(-1)!) as DeliveryReceipt;
  return { ...row, lastDelivery: latest, deliveryHistory: { ...history(row), records: [...records.slice(0, -1), latest] } };
};

/** Changes to a delivered row, valid and not. */
const CHANGES: Record<string, Change> = {
  none: (row) => row,
  'an empty message id': (row) => withLatest(row, (r) => ({ ...r, messageId: '' })),
  'a repeated message id': (row) => withLatest(row, (r) => ({ ...r, messageId: history(row).records[0]!.messageId })),
  'a non-canonical deliveredAt': (row) => withLatest(row, (r) => ({ ...r, deliveredAt: '2030-01-01 08:00' })),
  'a blank prompt': (row) => withLatest(row, (r) => ({ ...r, prompt: '  ' })),
  'missed without firstMissed': (row) => withLatest(row, (r) => ({ ...r, missed: 2 })),
  'missed of 0': (row) => withLatest(row, (r) => ({ ...r, missed: 0, firstMissed: '2029-12-31T08:00:00.000Z' })),
  'firstMissed after its target': (row) => withLatest(row, (r) => ({ ...r, missed: 1, firstMissed: '2099-01-01T00:00:00.000Z' })),
  'firstMissed without missed': (row) => withLatest(row, (r) => ({ ...r, firstMissed: '2029-12-31T08:00:00.000Z' })),
  'a trigger other than manual': (row) => withLatest(row, (r) => ({ ...r, trigger: 'auto' })),
  'members set to undefined': (row) =>
    withLatest(row, (r) => ({ ...r, prompt: undefined, trigger: undefined, missed: undefined, firstMissed: undefined })),
  'a member the receipt does not have': (row) => withLatest(row, (r) => ({ ...r, colour: 'blue' })),
  'a prompt of its own': (row) => withLatest(row, (r) => ({ ...r, prompt: 'Another prompt' })),
  'a message id too long': (row) => withLatest(row, (r) => ({ ...r, messageId: 'm'.repeat(257) })),
  'a prune flag that is not a boolean': (row) => ({
    ...row,
    deliveryHistory: { ...history(row), earlierRecordsPruned: 'yes' as unknown as boolean },
  }),
  'lastDelivery unlike the latest receipt': (row) => ({ ...row, lastDelivery: { ...row.lastDelivery!, messageId: 'other' } }),
  'a non-canonical target': (row) => ({ ...row, record: { ...row.record, scheduledAt: '2031-01-01T00:00:00Z' } }),
  'an unknown status': (row) => ({ ...row, status: 'done' as TaskRow['status'] }),
  'an ended row that is paused': (row) => ({ ...row, status: 'inactive', pausedAt: '2030-01-01T08:00:00.000Z' }),
  'a new title': (row) => ({ ...row, record: { ...row.record, title: 'Renamed' } }),
  'an empty title': (row) => ({ ...row, record: { ...row.record, title: '' } }),
  'another Session': (row) => ({ ...row, sessionId: 's2' }),
  'an empty Session id': (row) => ({ ...row, sessionId: '' }),
  'a receipt dropped from the middle': (row) => ({
    ...row,
    deliveryHistory: { ...history(row), records: history(row).records.filter((_, i) => i !== 1) },
  }),
  'a changed kept receipt': (row) => ({
    ...row,
    deliveryHistory: { ...history(row), records: history(row).records.map((r, i) => (i === 0 ? { ...r, messageId: 'rewritten' } : r)) },
  }),
};

describe('prepareBatch of a delivery on a stored row', () => {
  it('keeps the row the whole-row decode keeps, sharing the stored row’s receipts', () => {
    const { row, of } = stored(200);
    const next = delivered(row, 200);
    const fast = prepareBatch({ puts: [next], deletes: [] }, of).puts[0]!;
    const whole = prepareBatch({ puts: [next], deletes: [] }).puts[0]!;
    expect(fast).toEqual(whole);
    expect(history(fast).records).toHaveLength(200);
    // One receipt pruned, one appended: the 199 kept are the stored row's own objects.
    const storedRecords = history(of.get('sch_1')!).records;
    expect(
      history(fast)
        .records.slice(0, 199)
        .every((receipt, i) => receipt === storedRecords[i + 1]),
    ).toBe(true);
    expect(history(fast).records[199]).not.toBe(history(next).records[199]);
  });

  it.each(Object.keys(CHANGES))('a delivered row with %s is kept or refused as the whole-row decode does', (name) => {
    const { row, of } = stored(3);
    const put = CHANGES[name]!(delivered(row, 3));
    expect(outcome(put, of)).toEqual(outcome(put));
  });

  it('any sequence of deliveries and changes: the same rows kept, the same refusals (fast-check)', () => {
    const names = Object.keys(CHANGES);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 12 }), fc.constantFrom(...names), fc.boolean(), (count, name, pruning) => {
        const { row, of } = stored(count);
        const retention = pruning ? { days: 3650, records: Math.max(1, count) } : RETENTION;
        const occurrence = T0 + count * 600_000;
        const next = applyDelivery(
          row,
          { occurrence, messageId: `m${count}`, deliveredAt: occurrence + 5, prompt: row.record.prompt, startedRecord: row.record },
          occurrence + 1,
          retention,
        );
        const put = count === 0 && name !== 'none' ? next : CHANGES[name]!(next);
        expect(outcome(put, of)).toEqual(outcome(put));
      }),
      { seed: 20261203, numRuns: 400 },
    );
  });

  it('a memory storage keeps no object of the caller’s put, and its document equals the whole-row one', async () => {
    const storage = memoryStorage();
    await storage.open();
    let current = sampleRow(1);
    await storage.commit({ puts: [current], deletes: [] });
    for (let n = 0; n < 5; n++) {
      current = delivered(current, n);
      await storage.commit({ puts: [current], deletes: [] });
    }
    const before = storage.documentText();
    // The caller's receipts changed after the commit cannot reach what the storage holds.
    (history(current).records[4] as { messageId: string }).messageId = 'changed later';
    expect(storage.documentText()).toBe(before);
    const again = memoryStorage(JSON.parse(before));
    const opened = await again.open();
    expect(opened.tasks[0]?.deliveryHistory?.records.map((r) => r.messageId)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
  });
});

// The storage conformance suite (in the manner of bullmq's adapter conformance tests): every
// ScheduleStorage adapter must pass it. A harness gives fresh or seeded stores; a store hands
// out new adapter instances over the same data (a Host restart) and shows its document after
// close. Run it from one `.test.ts` file per adapter.
import { encodeDocument } from '../../src/domain/codec/index.ts';
import { withDelivery } from '../../src/domain/tasks/retention.ts';
import type { DeliveryFailure, DeliveryReceipt, TaskRow } from '../../src/domain/tasks/types.ts';
import type { ScheduleStorage } from '../../src/ports.ts';
import { deliveredRow, KINDS, receipt, row } from './fixtures.ts';

/** Data that outlives adapter instances: a directory with schedule.json, or a memory document. */
export interface Store {
  /** A new adapter instance over this store (the previous one must be closed). */
  storage(): ScheduleStorage;
  /** The document the store holds (read after the adapter closed). */
  document(): unknown;
}

/** Creates stores for one adapter. */
export interface StorageHarness {
  fresh(): Store | Promise<Store>;
  seeded(document: unknown): Store | Promise<Store>;
}

const codeOf = async (promise: Promise<unknown>): Promise<string> => {
  try {
    await promise;
  } catch (error) {
    return (error as { code?: string }).code ?? `untyped: ${String(error)}`;
  }
  return 'resolved';
};

async function reopen(store: Store) {
  const storage = store.storage();
  const domain = await storage.open();
  return { storage, domain };
}

/** Registers the conformance tests for one adapter. */
export function describeStorageConformance(name: string, harness: StorageHarness): void {
  describe(`${name}: storage conformance`, () => {
    it('an empty store opens as an empty domain with counter 1', async () => {
      const { storage, domain } = await reopen(await harness.fresh());
      expect(domain).toEqual({ tasks: [], nextTaskNumber: 1 });
      await storage.close();
    });

    it('committed rows of every kind survive close and reopen, in commit order, with history', async () => {
      const store = await harness.fresh();
      const first = await reopen(store);
      const rows: TaskRow[] = KINDS.map((kind, i) => (i % 2 === 0 ? row(i + 1, kind) : deliveredRow(i + 1, 3, kind)));
      for (const r of rows) await first.storage.commit({ puts: [r], deletes: [], nextTaskNumber: Number(r.record.id.slice(4)) + 1 });
      await first.storage.close();
      const second = await reopen(store);
      expect(second.domain.tasks).toEqual(rows);
      expect(second.domain.nextTaskNumber).toBe(7);
      await second.storage.close();
      expect(store.document()).toEqual(JSON.parse(encodeDocument({ tasks: rows, nextTaskNumber: 7 })));
    });

    it('delivery commits (receipts appended and pruned, the target moving, a one-shot ending) survive close and reopen', async () => {
      const store = await harness.fresh();
      const first = await reopen(store);
      const limits = { days: 30, records: 4 };
      let every = deliveredRow(1, 3);
      let once = deliveredRow(2, 1, 'after');
      await first.storage.commit({ puts: [every, once], deletes: [], nextTaskNumber: 3 });
      for (let k = 0; k < 6; k++) {
        const next = withDelivery(every, receipt(5000 + k, k % 2 === 0 ? 'Check the build' : 'Do thing 1'), limits);
        every = { ...next, record: { ...next.record, scheduledAt: `2030-02-0${k + 1}T08:00:00.000Z` } };
        await first.storage.commit({ puts: [every], deletes: [] });
      }
      once = { ...withDelivery(once, receipt(6000), limits), status: 'inactive' };
      await first.storage.commit({ puts: [once], deletes: [] });
      await first.storage.close();
      const second = await reopen(store);
      expect(second.domain.tasks).toEqual([every, once]);
      expect(every.deliveryHistory?.records).toHaveLength(4);
      await second.storage.close();
    });

    it('paused and run-now rows, run-now and coalesced receipts survive commits (deliveries included) and reopen', async () => {
      const store = await harness.fresh();
      const first = await reopen(store);
      const limits = { days: 30, records: 4 };
      const coalesced = (n: number): DeliveryReceipt => ({ ...receipt(n), missed: n % 7, firstMissed: '2030-01-01T07:59:00.000Z' });
      const base = deliveredRow(1, 2);
      let paused: TaskRow = {
        ...withDelivery(base, coalesced(1003), limits),
        pausedAt: '2030-01-01T08:00:00.000Z',
        triggeredAt: '2030-01-01T08:00:30.000Z',
      };
      const waiting: TaskRow = { ...row(2, 'cron'), triggeredAt: '2030-01-01T08:01:00.000Z' };
      await first.storage.commit({ puts: [paused, waiting], deletes: [], nextTaskNumber: 3 });
      // A delivery that keeps the run state, then the run-now delivery that clears triggeredAt.
      paused = withDelivery(paused, coalesced(1004), limits);
      await first.storage.commit({ puts: [paused], deletes: [] });
      const { triggeredAt: _done, ...ranNow } = withDelivery(paused, { ...receipt(1005), trigger: 'manual' }, limits);
      paused = ranNow;
      await first.storage.commit({ puts: [paused], deletes: [] });
      await first.storage.close();
      const second = await reopen(store);
      expect(second.domain.tasks).toEqual([paused, waiting]);
      expect(second.domain.tasks[0]?.pausedAt).toBe('2030-01-01T08:00:00.000Z');
      expect(second.domain.tasks[0]?.triggeredAt).toBeUndefined();
      expect(second.domain.tasks[0]?.deliveryHistory?.records.map((r) => [r.trigger, r.missed, r.firstMissed])).toEqual([
        [undefined, undefined, undefined],
        [undefined, 1003 % 7, '2030-01-01T07:59:00.000Z'],
        [undefined, 1004 % 7, '2030-01-01T07:59:00.000Z'],
        ['manual', undefined, undefined],
      ]);
      await second.storage.close();
      expect(store.document()).toEqual(JSON.parse(encodeDocument({ tasks: [paused, waiting], nextTaskNumber: 3 })));
    });

    it('failure statuses and pause notes survive commits and reopen; the delivery that clears a status stores the row without it', async () => {
      const store = await harness.fresh();
      const first = await reopen(store);
      const limits = { days: 30, records: 4 };
      const failure = (attempts: number): DeliveryFailure => ({
        attempts,
        lastAt: `2030-01-01T08:0${attempts}:00.000Z`,
        stage: 'resolve',
        message: `Session store offline (attempt ${attempts}) ${'/very/long/path'.repeat(100)}`,
        nextRetryAt: `2030-01-01T08:0${attempts}:05.000Z`,
      });
      let failing: TaskRow = { ...deliveredRow(1, 2), failure: failure(1) };
      const noted: TaskRow = { ...row(2, 'cron'), pausedAt: '2030-01-01T08:00:00.000Z', pauseNote: 'Vendor outage — back on Monday' };
      await first.storage.commit({ puts: [failing, noted], deletes: [], nextTaskNumber: 3 });
      failing = { ...failing, failure: failure(2) };
      await first.storage.commit({ puts: [failing], deletes: [] });
      await first.storage.close();
      const second = await reopen(store);
      expect(second.domain.tasks).toEqual([failing, noted]);
      const { failure: _cleared, ...delivered } = withDelivery(failing, receipt(7000), limits);
      await second.storage.commit({ puts: [delivered], deletes: [] });
      await second.storage.close();
      const third = await reopen(store);
      expect(third.domain.tasks).toEqual([delivered, noted]);
      expect(third.domain.tasks[0]).not.toHaveProperty('failure');
      await third.storage.close();
      expect(store.document()).toEqual(JSON.parse(encodeDocument({ tasks: [delivered, noted], nextTaskNumber: 3 })));
    });

    it('a put replaces the row in place, a delete removes it, deleting an absent id changes nothing', async () => {
      const store = await harness.fresh();
      const first = await reopen(store);
      await first.storage.commit({ puts: [row(1), row(2), row(3)], deletes: [] });
      const renamed: TaskRow = { ...row(2), status: 'inactive', record: { ...row(2).record, title: 'Renamed' } };
      await first.storage.commit({ puts: [renamed], deletes: ['sch_1'] });
      await first.storage.commit({ puts: [], deletes: ['sch_99'] });
      await first.storage.close();
      const second = await reopen(store);
      expect(second.domain.tasks).toEqual([renamed, row(3)]);
      await second.storage.close();
    });

    it('remembered calls land with the rows of their commit, survive reopen, and are forgotten by forgetCalls', async () => {
      const store = await harness.fresh();
      const first = await reopen(store);
      const created = { sessionId: 's1', callId: 'toolu_01', operation: 'schedule_create', calledAt: '2030-01-01T08:00:00.000Z' } as const;
      const call1 = { ...created, arguments: '{"after_seconds":60}', answer: { id: 'sch_1', title: 'One' } };
      const call2 = { ...created, sessionId: 's2', callId: 'call_b', arguments: '{}', answer: { id: 'sch_2', deleted: true } };
      await first.storage.commit({ puts: [row(1)], deletes: [], calls: [call1] });
      await first.storage.commit({ puts: [], deletes: [], calls: [call2] });
      await first.storage.close();
      const second = await reopen(store);
      expect(second.domain.tasks).toEqual([row(1)]);
      expect(second.domain.calls).toEqual([call1, call2]);
      await second.storage.commit({ puts: [row(2)], deletes: [], forgetCalls: [{ sessionId: 's1', callId: 'toolu_01' }] });
      await second.storage.close();
      const third = await reopen(store);
      expect(third.domain.calls).toEqual([call2]);
      expect(third.domain.tasks).toEqual([row(1), row(2)]);
      await third.storage.close();
    });

    it('a batch with an invalid remembered call is refused (internal_error) and writes none of its rows', async () => {
      const store = await harness.fresh();
      const first = await reopen(store);
      const bad = { sessionId: 's1', callId: '', operation: 'schedule_create', arguments: '{}', answer: {}, calledAt: 'yesterday' };
      expect(await codeOf(first.storage.commit({ puts: [row(1)], deletes: [], calls: [bad as never] }))).toBe('internal_error');
      await first.storage.close();
      const second = await reopen(store);
      expect(second.domain.tasks).toEqual([]);
      expect(second.domain.calls ?? []).toEqual([]);
      await second.storage.close();
    });

    it('the id counter only grows and covers every sch_<n> ever put, even after deletion', async () => {
      const store = await harness.fresh();
      const first = await reopen(store);
      await first.storage.commit({ puts: [row(4)], deletes: [] });
      await first.storage.commit({ puts: [], deletes: [], nextTaskNumber: 10 });
      await first.storage.commit({ puts: [], deletes: ['sch_4'], nextTaskNumber: 3 });
      await first.storage.close();
      const second = await reopen(store);
      expect(second.domain).toEqual({ tasks: [], nextTaskNumber: 10 });
      await second.storage.close();
    });

    it('commits issued without awaiting all land, in the order they were made', async () => {
      const store = await harness.fresh();
      const first = await reopen(store);
      const versions = Array.from({ length: 20 }, (_, i) => ({ ...row(1), record: { ...row(1).record, title: `Version ${i}` } }));
      await Promise.all([
        ...versions.map((v) => first.storage.commit({ puts: [v], deletes: [] })),
        first.storage.commit({ puts: [row(2)], deletes: [] }),
      ]);
      await first.storage.close();
      const second = await reopen(store);
      expect(second.domain.tasks).toEqual([versions[19], row(2)]);
      await second.storage.close();
    });

    it('an invalid row is refused (internal_error) and changes nothing; other commits still land', async () => {
      const store = await harness.fresh();
      const first = await reopen(store);
      const bad = { ...row(1), record: { ...row(1).record, title: '  padded  ' } };
      const results = await Promise.all([
        codeOf(first.storage.commit({ puts: [bad], deletes: [] })),
        codeOf(first.storage.commit({ puts: [row(2)], deletes: [] })),
      ]);
      expect(results).toEqual(['internal_error', 'resolved']);
      expect(await codeOf(first.storage.commit({ puts: [row(3)], deletes: ['sch_3'] }))).toBe('internal_error');
      expect(await codeOf(first.storage.commit({ puts: [], deletes: ['not a valid id'] }))).toBe('internal_error');
      expect(await codeOf(first.storage.commit({ puts: [], deletes: [], nextTaskNumber: 0 }))).toBe('internal_error');
      await first.storage.close();
      const second = await reopen(store);
      expect(second.domain.tasks).toEqual([row(2)]);
      await second.storage.close();
    });

    it('stores a copy: changing a committed object afterwards does not change the store', async () => {
      const store = await harness.fresh();
      const first = await reopen(store);
      const mutable = structuredClone(row(1)) as { record: { title: string } } & TaskRow;
      await first.storage.commit({ puts: [mutable], deletes: [] });
      mutable.record.title = 'Changed later';
      await first.storage.close();
      const second = await reopen(store);
      expect(second.domain.tasks).toEqual([row(1)]);
      await second.storage.close();
    });

    it('commit before open or after close is refused; the same instance can open again after close', async () => {
      const store = await harness.fresh();
      const storage = store.storage();
      expect(await codeOf(storage.commit({ puts: [row(1)], deletes: [] }))).toBe('internal_error');
      await storage.open();
      expect(await codeOf(storage.open())).toBe('internal_error');
      await storage.commit({ puts: [row(1)], deletes: [] });
      await storage.close();
      expect(await codeOf(storage.commit({ puts: [row(2)], deletes: [] }))).toBe('internal_error');
      const again = await storage.open();
      expect(again.tasks).toEqual([row(1)]);
      await storage.close();
      await storage.close();
    });

    it('a seeded document: a row without status reads as active, aliases and targets are kept as stored', async () => {
      const stored = { ...row(7, 'daily'), record: { ...row(7, 'daily').record, scheduledAt: '2031-05-05T05:05:05.005Z' } };
      const { status: _status, ...withoutStatus } = stored;
      const store = await harness.seeded({ version: 1, tasks: [withoutStatus] });
      const { storage, domain } = await reopen(store);
      expect(domain).toEqual({ tasks: [stored], nextTaskNumber: 8 });
      expect(domain.tasks[0]?.record).toMatchObject({ timeZone: 'Asia/Calcutta', scheduledAt: '2031-05-05T05:05:05.005Z' });
      await storage.close();
    });

    it('a bad seeded document is refused with corrupt_schedule_log, and the corrected one opens', async () => {
      const bad = { version: 1, tasks: [{ ...row(1), record: { ...row(1).record, title: '' } }] };
      const store = await harness.seeded(bad);
      expect(await codeOf(store.storage().open())).toBe('corrupt_schedule_log');
      const good = await harness.seeded({ version: 1, tasks: [row(1)] });
      const { storage, domain } = await reopen(good);
      expect(domain.tasks).toEqual([row(1)]);
      await storage.close();
    });

    it('the document after close is the deterministic encoding of the domain', async () => {
      const store = await harness.fresh();
      const first = await reopen(store);
      await first.storage.commit({ puts: [deliveredRow(2, 2, 'cron'), row(1, 'at')], deletes: [], nextTaskNumber: 5 });
      await first.storage.close();
      const expected = encodeDocument({ tasks: [deliveredRow(2, 2, 'cron'), row(1, 'at')], nextTaskNumber: 5 });
      expect(JSON.stringify(store.document())).toBe(JSON.stringify(JSON.parse(expected)));
      expect(store.document()).toMatchObject({ version: 1, nextTaskNumber: 5 });
    });
  });
}

// Delivery commits in the journal: when a put only appends receipts to the row the storage holds
// (pruning the oldest, moving the target, maybe ending the task), the journal line carries that
// delta instead of the whole row, so a delivery writes bytes in proportion to the change, not to
// the history or the prompt. Replaying the journal over the document gives back exactly the rows
// committed; a torn delta at the tail is ignored; a delta whose row is missing or different is
// `corrupt_schedule_log`. Every other change — a delivery that sets or clears `pausedAt` or
// `triggeredAt` included — still writes whole rows.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { jsonFileStorage } from '../../src/adapters/jsonFileStorage.ts';
import { journalPathFor, loadDomainFiles } from '../../src/adapters/loadDomain.ts';
import { encodeBatch, encodeDocument } from '../../src/domain/codec/index.ts';
import { withDelivery } from '../../src/domain/tasks/retention.ts';
import type { DeliveryReceipt, TaskRow } from '../../src/domain/tasks/types.ts';
import { FaultyFileSystem, filesIn, removeTempDirs, tempDir } from './tempFiles.ts';

afterEach(removeTempDirs);

const SEED = 20300103;
const BASE_MS = Date.parse('2030-01-01T08:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const LIMITS = { days: 30, records: 200 };
const NO_COMPACTION = { minBytes: 1 << 30, ratio: 1 };

const promptOf = (length: number) =>
  'Check the deploy queue and report what is red. '
    .repeat(Math.ceil(length / 48))
    .slice(0, length)
    .trim();

function taskRow(n: number, prompt: string): TaskRow {
  return {
    sessionId: `s${n}`,
    status: 'active',
    record: { id: `sch_${n}`, kind: 'every', title: `Task ${n}`, prompt, scheduledAt: iso(BASE_MS + 60_000), everySeconds: 60 },
    deliveryHistory: { records: [], earlierRecordsUnavailable: false, earlierRecordsPruned: false },
  };
}

const receiptAt = (n: number, k: number, prompt: string | undefined): DeliveryReceipt => {
  const r = { scheduledAt: iso(BASE_MS + k * 60_000), deliveredAt: iso(BASE_MS + k * 60_000 + 300), messageId: `m-${n}-${k}` };
  return prompt === undefined ? r : { ...r, prompt };
};

/** The row after delivery number `k`: a receipt appended under `limits`, the target one minute on. */
const delivered = (row: TaskRow, k: number, limits = LIMITS): TaskRow => {
  const next = withDelivery(row, receiptAt(Number(row.record.id.slice(4)), k, row.record.prompt), limits);
  return { ...next, record: { ...next.record, scheduledAt: iso(BASE_MS + (k + 1) * 60_000) } };
};

function withHistory(n: number, prompt: string, receipts: number): TaskRow {
  let row = taskRow(n, prompt);
  for (let k = 0; k < receipts; k++) row = delivered(row, k);
  return row;
}

function seed(dir: string, rows: TaskRow[]): string {
  const path = join(dir, 'schedule.json');
  writeFileSync(path, encodeDocument({ tasks: rows, nextTaskNumber: 100 }));
  return path;
}

/** The journal's lines, parsed. */
const journalLines = (path: string): Array<Record<string, unknown>> =>
  journalOf(path)
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

const journalOf = (path: string): string => {
  try {
    return readFileSync(journalPathFor(path), 'utf8');
  } catch {
    return '';
  }
};

describe('delivery deltas in the journal', () => {
  it.each([100, 60_000])('a delivery of a 200-receipt row with a %i-character prompt appends under 1 KiB', async (length) => {
    const dir = tempDir();
    const full = withHistory(1, promptOf(length), 200);
    const path = seed(dir, [full]);
    const storage = jsonFileStorage({ path });
    await storage.open();
    const next = delivered(full, 200);
    expect(next.deliveryHistory?.records).toHaveLength(200);
    await storage.commit({ puts: [next], deletes: [] });
    expect(statSync(journalPathFor(path)).size).toBeLessThan(1024);
    expect((await loadDomainFiles(path)).state.snapshot().tasks).toEqual([next]);
    await storage.close();
    const reopened = jsonFileStorage({ path });
    expect((await reopened.open()).tasks).toEqual([next]);
    await reopened.close();
  });

  it('a one-shot ending, a prune by age and a target change all travel as a delta', async () => {
    const dir = tempDir();
    const base = withHistory(2, 'Ping the on-call channel', 5);
    const path = seed(dir, [base]);
    const storage = jsonFileStorage({ path, compaction: NO_COMPACTION });
    await storage.open();
    const later = withDelivery(base, receiptAt(2, 90 * 24 * 60, 'Ping the on-call channel'), LIMITS); // 90 days on: all 5 pruned by age
    const ended: TaskRow = { ...later, status: 'inactive', record: { ...later.record, scheduledAt: iso(BASE_MS + 7 * 60_000) } };
    await storage.commit({ puts: [ended], deletes: [] });
    const [line] = journalLines(path);
    expect(line).toMatchObject({
      puts: [],
      deletes: [],
      deliveries: [{ id: 'sch_2', pruned: 5, status: 'inactive', earlierRecordsPruned: true }],
    });
    expect((await loadDomainFiles(path)).state.snapshot().tasks).toEqual([ended]);
    await storage.close();
  });

  it('a paused row keeps pausedAt through a delta; a delivery that sets or clears pausedAt or triggeredAt writes the whole row', async () => {
    const dir = tempDir();
    const base: TaskRow = { ...withHistory(5, 'Check the queue', 2), pausedAt: iso(BASE_MS), triggeredAt: iso(BASE_MS + 1000) };
    const path = seed(dir, [base]);
    const storage = jsonFileStorage({ path, compaction: NO_COMPACTION });
    await storage.open();
    const coalesced = { ...receiptAt(5, 10, 'Check the queue'), missed: 4, firstMissed: iso(BASE_MS + 5 * 60_000) };
    const kept = withDelivery(base, coalesced, LIMITS);
    await storage.commit({ puts: [kept], deletes: [] });
    const { triggeredAt: _done, ...ranNow } = withDelivery(
      kept,
      { ...receiptAt(5, 11, 'Check the queue'), trigger: 'manual' as const },
      LIMITS,
    );
    await storage.commit({ puts: [ranNow], deletes: [] });
    const { pausedAt: _resumedAt, ...unpaused } = ranNow;
    const resumed = withDelivery(unpaused, receiptAt(5, 12, 'Check the queue'), LIMITS);
    await storage.commit({ puts: [resumed], deletes: [] });
    const lines = journalLines(path);
    expect(lines.map((l) => Object.hasOwn(l, 'deliveries'))).toEqual([true, false, false]);
    expect(lines[0]).toMatchObject({ deliveries: [{ id: 'sch_5', receipts: [{ missed: 4, firstMissed: coalesced.firstMissed }] }] });
    expect((await loadDomainFiles(path)).state.snapshot().tasks).toEqual([resumed]);
    await storage.close();
    const reopened = jsonFileStorage({ path });
    const tasks = (await reopened.open()).tasks;
    expect(tasks).toEqual([resumed]);
    expect(tasks[0]?.deliveryHistory?.records.slice(-3)).toEqual([
      coalesced,
      { ...receiptAt(5, 11, 'Check the queue'), trigger: 'manual' },
      receiptAt(5, 12, 'Check the queue'),
    ]);
    await reopened.close();
  });

  it('creates, edits, deletes and rows without saved history still write whole rows', async () => {
    const dir = tempDir();
    const legacy: TaskRow = { ...taskRow(3, 'Legacy'), lastDelivery: receiptAt(3, 0, undefined) };
    delete (legacy as { deliveryHistory?: unknown }).deliveryHistory;
    const path = seed(dir, [withHistory(1, 'One', 2), legacy]);
    const storage = jsonFileStorage({ path, compaction: NO_COMPACTION });
    await storage.open();
    const edited = { ...withHistory(1, 'One', 2), record: { ...withHistory(1, 'One', 2).record, title: 'Renamed' } };
    await storage.commit({ puts: [edited], deletes: [] });
    await storage.commit({ puts: [taskRow(4, 'New')], deletes: [], nextTaskNumber: 100 });
    await storage.commit({ puts: [delivered(legacy, 1)], deletes: [] });
    await storage.commit({ puts: [], deletes: ['sch_4'] });
    expect(journalLines(path).map((l) => Object.hasOwn(l, 'deliveries'))).toEqual([false, false, false, false]);
    expect((await loadDomainFiles(path)).state.snapshot().tasks).toEqual([edited, delivered(legacy, 1)]);
    await storage.close();
  });

  it('replay: random deliveries, prunes, prompt edits and deletes, committed one by one, reopen as committed', async () => {
    type Step =
      | { kind: 'deliver'; task: 1 | 2; records: number; prompt: 'same' | 'none' | 'other' }
      | { kind: 'editPrompt'; task: 1 | 2 }
      | { kind: 'delete'; task: 1 | 2 }
      | { kind: 'together' };
    const stepArb: fc.Arbitrary<Step> = fc.oneof(
      {
        weight: 6,
        arbitrary: fc.record({
          kind: fc.constant('deliver' as const),
          task: fc.constantFrom(1 as const, 2 as const),
          records: fc.integer({ min: 1, max: 4 }),
          prompt: fc.constantFrom('same' as const, 'none' as const, 'other' as const),
        }),
      },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('editPrompt' as const), task: fc.constantFrom(1 as const, 2 as const) }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), task: fc.constantFrom(1 as const, 2 as const) }) },
      { weight: 1, arbitrary: fc.constant({ kind: 'together' as const }) },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 12 }), async (steps) => {
        const dir = tempDir();
        const rows = new Map<string, TaskRow>([
          ['sch_1', withHistory(1, 'First prompt', 2)],
          ['sch_2', withHistory(2, 'Second prompt', 0)],
        ]);
        const path = seed(dir, [...rows.values()]);
        const storage = jsonFileStorage({ path, compaction: NO_COMPACTION });
        await storage.open();
        let k = 10;
        let edits = 0;
        const deliver = (row: TaskRow, records: number, prompt: 'same' | 'none' | 'other'): TaskRow => {
          k++;
          const text = prompt === 'same' ? row.record.prompt : prompt === 'other' ? `Variant ${k % 2}` : undefined;
          const next = withDelivery(row, receiptAt(Number(row.record.id.slice(4)), k, text), { days: 30, records });
          return { ...next, record: { ...next.record, scheduledAt: iso(BASE_MS + k * 60_000) } };
        };
        for (const step of steps) {
          if (step.kind === 'together') {
            const puts = [...rows.values()].map((row) => deliver(row, 3, 'same'));
            await Promise.all(puts.map((put) => storage.commit({ puts: [put], deletes: [] })));
            for (const put of puts) rows.set(put.record.id, put);
            continue;
          }
          const id = `sch_${step.task}`;
          const row = rows.get(id);
          if (step.kind === 'delete') {
            await storage.commit({ puts: [], deletes: [id] });
            rows.delete(id);
          } else if (row === undefined) {
            const fresh = taskRow(step.task, 'Recreated prompt');
            await storage.commit({ puts: [fresh], deletes: [] });
            rows.set(id, fresh);
          } else {
            const next =
              step.kind === 'deliver'
                ? deliver(row, step.records, step.prompt)
                : { ...row, record: { ...row.record, prompt: `Edited ${++edits}` } };
            await storage.commit({ puts: [next], deletes: [] });
            rows.set(id, next);
          }
        }
        const sorted = (tasks: readonly TaskRow[]) => [...tasks].sort((a, b) => (a.record.id < b.record.id ? -1 : 1));
        expect(sorted((await loadDomainFiles(path)).state.snapshot().tasks)).toEqual(sorted([...rows.values()]));
        await storage.close();
        const reopened = jsonFileStorage({ path });
        expect(sorted((await reopened.open()).tasks)).toEqual(sorted([...rows.values()]));
        await reopened.close();
      }),
      { seed: SEED, numRuns: 40 },
    );
  });

  it('a journal written by an older version (no document named) replays as before and takes whole rows only', async () => {
    const dir = tempDir();
    const base = withHistory(1, 'Older', 3);
    const path = seed(dir, [withHistory(1, 'Older', 2)]);
    writeFileSync(journalPathFor(path), `${encodeBatch({ puts: [base], deletes: [] })}\n`);
    const storage = jsonFileStorage({ path, compaction: NO_COMPACTION });
    expect((await storage.open()).tasks).toEqual([base]);
    const next = delivered(base, 3);
    await storage.commit({ puts: [next], deletes: [] });
    expect(journalLines(path).map((l) => [Object.hasOwn(l, 'document'), Object.hasOwn(l, 'deliveries')])).toEqual([
      [false, false],
      [false, false],
    ]);
    expect((await loadDomainFiles(path)).state.snapshot().tasks).toEqual([next]);
    await storage.close();
    // after the close folded it, the next journal names its document and takes deltas
    const again = jsonFileStorage({ path, compaction: NO_COMPACTION });
    await again.open();
    await again.commit({ puts: [delivered(next, 4)], deletes: [] });
    expect(journalLines(path)).toMatchObject([{ document: expect.stringMatching(/^sha256-/), deliveries: [{ id: 'sch_1' }] }]);
    await again.close();
  });

  it('a torn delta at the tail is ignored at open and cut off before the next append', async () => {
    const dir = tempDir();
    const base = withHistory(1, 'Torn', 3);
    const path = seed(dir, [base]);
    const storage = jsonFileStorage({ path, compaction: NO_COMPACTION });
    await storage.open();
    const first = delivered(base, 3);
    await storage.commit({ puts: [first], deletes: [] });
    await storage.commit({ puts: [delivered(first, 4)], deletes: [] });
    const [line1, line2] = journalOf(path).split('\n');
    // the journal's first line names the document it continues
    expect(JSON.parse(line1 ?? '')).toMatchObject({ version: 1, document: expect.stringMatching(/^sha256-/) });
    await storage.close();
    // the files as a crash in the middle of the second append would leave them
    writeFileSync(path, encodeDocument({ tasks: [base], nextTaskNumber: 100 }));
    writeFileSync(journalPathFor(path), `${line1}\n${line2?.slice(0, 30)}`);
    const again = jsonFileStorage({ path, compaction: NO_COMPACTION });
    expect((await again.open()).tasks).toEqual([first]);
    const third = delivered(first, 5);
    await again.commit({ puts: [third], deletes: [] });
    expect(journalLines(path)).toHaveLength(2);
    expect((await loadDomainFiles(path)).state.snapshot().tasks).toEqual([third]);
    await again.close();
  });

  it('a compaction that renamed its document but could not empty the journal: the deltas are not replayed twice', async () => {
    const dir = tempDir();
    const base = withHistory(1, 'Folded', 3);
    const path = seed(dir, [base]);
    const fs = new FaultyFileSystem();
    const errors: unknown[] = [];
    const storage = jsonFileStorage({ path, fs, compaction: { minBytes: 0, ratio: 0 }, onCompactionError: (e) => errors.push(e) });
    await storage.open();
    fs.failNext('truncate', '.journal');
    const first = delivered(base, 3);
    await storage.commit({ puts: [first], deletes: [] });
    await storage.idle();
    expect(errors).toHaveLength(1);
    // schedule.json already holds the delta; the journal still holds it, marked as folded
    expect(journalOf(path)).toContain('"folded":"sha256-');
    expect((await loadDomainFiles(path)).state.snapshot().tasks).toEqual([first]);
    const second = delivered(first, 4);
    await storage.commit({ puts: [second], deletes: [] });
    expect((await loadDomainFiles(path)).state.snapshot().tasks).toEqual([second]);
    await storage.close();
  });

  it('a compaction whose rename failed after marking the journal: the journal replays over the old document', async () => {
    const dir = tempDir();
    const base = withHistory(1, 'Not folded', 3);
    const path = seed(dir, [base]);
    const fs = new FaultyFileSystem();
    const storage = jsonFileStorage({ path, fs, compaction: { minBytes: 0, ratio: 0 }, onCompactionError: () => undefined });
    await storage.open();
    fs.failNext('rename', 'schedule.json');
    const first = delivered(base, 3);
    await storage.commit({ puts: [first], deletes: [] });
    await storage.idle();
    expect(journalOf(path)).toContain('"folded":"sha256-');
    expect((await loadDomainFiles(path)).state.snapshot().tasks).toEqual([first]);
    await storage.close();
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ tasks: [{ lastDelivery: { messageId: 'm-1-3' } }] });
  });

  it('a schedule.json replaced under its journal refuses the open; both files are left unchanged', async () => {
    const dir = tempDir();
    const base = withHistory(1, 'Replaced', 3);
    const path = seed(dir, [base]);
    const storage = jsonFileStorage({ path, compaction: NO_COMPACTION });
    await storage.open();
    await storage.commit({ puts: [delivered(base, 3)], deletes: [] });
    const journal = journalOf(path);
    await storage.close();
    writeFileSync(journalPathFor(path), journal);
    writeFileSync(path, encodeDocument({ tasks: [withHistory(1, 'Replaced', 2)], nextTaskNumber: 100 }));
    const before = filesIn(dir);
    await expect(jsonFileStorage({ path }).open()).rejects.toMatchObject({
      code: 'corrupt_schedule_log',
      message: expect.stringMatching(/journal line 1: document names the document sha256-.* but schedule\.json is sha256-/),
    });
    expect(filesIn(dir)).toEqual(before);
  });

  const deltaLine = (id: string, after: string | undefined) =>
    JSON.stringify({
      version: 1,
      puts: [],
      deletes: [],
      deliveries: [
        {
          id,
          ...(after === undefined ? {} : { after }),
          pruned: 0,
          receipts: [{ scheduledAt: iso(BASE_MS), deliveredAt: iso(BASE_MS + 1), messageId: 'late-1', promptRef: 'record' }],
        },
      ],
    });

  it.each([
    ['names a task the domain does not hold', deltaLine('sch_9', undefined), /line 2: deliveries\[0\].*"sch_9".*not hold/],
    ['was recorded against another version of the row', deltaLine('sch_1', 'm-1-0'), /line 2: deliveries\[0\]\.after/],
    ['prunes more receipts than the row holds', deltaLine('sch_1', 'm-1-1').replace('"pruned":0', '"pruned":3'), /deliveries\[0\]\.pruned/],
    ['repeats a message id the row holds', deltaLine('sch_1', 'm-1-1').replace('late-1', 'm-1-0'), /messageId/],
    [
      'refers to the previous receipt of an empty history',
      deltaLine('sch_1', 'm-1-1').replace('"pruned":0', '"pruned":2').replace('"record"', '"previous"'),
      /promptRef/,
    ],
  ])('a delta that %s refuses the open with corrupt_schedule_log; no file changes', async (_name, line, message) => {
    const dir = tempDir();
    const path = seed(dir, [withHistory(1, 'Base', 2)]);
    writeFileSync(journalPathFor(path), `${encodeBatch({ puts: [], deletes: ['sch_50'] })}\n${line}\n`);
    const before = filesIn(dir);
    const storage = jsonFileStorage({ path });
    await expect(storage.open()).rejects.toMatchObject({ code: 'corrupt_schedule_log', message: expect.stringMatching(message) });
    expect(filesIn(dir)).toEqual(before);
  });
});

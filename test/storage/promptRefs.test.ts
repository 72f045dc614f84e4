// Receipts' prompt snapshots in the stored form: a receipt whose prompt equals its record's prompt
// or the previous receipt's is stored as a reference (`promptRef: "record" | "previous"`), so a
// row keeps each distinct prompt once however many receipts repeat it. The decoded row and every
// answer keep the whole prompt per receipt; a receipt without any prompt (recorded before prompts
// were kept) stays without one; a reference that cannot be resolved refuses the domain.
import fc from 'fast-check';
import { decodeDocument, decodeDocumentText, decodeRow, encodeDocument, encodeRow } from '../../src/domain/codec/index.ts';
import type { DeliveryReceipt, TaskRow } from '../../src/domain/tasks/types.ts';
import { closeAll, harness, MINUTE, tick } from '../support/harness.ts';
import { domainArb, receipt, row } from './fixtures.ts';

afterEach(closeAll);

const SEED = 20300102;
const LONG = 'Look at the failing builds and summarise them. '.repeat(1300).trim();

/** Row `sch_<n>` with receipts whose prompts are given (undefined: a receipt without prompt). */
function rowWithPrompts(n: number, recordPrompt: string, prompts: ReadonlyArray<string | undefined>): TaskRow {
  const records: DeliveryReceipt[] = prompts.map((p, i) => {
    const { prompt: _default, ...bare } = receipt(n * 1000 + i);
    return p === undefined ? bare : { ...bare, prompt: p };
  });
  const base = row(n);
  const last = records.at(-1);
  const withRecord: TaskRow = { ...base, record: { ...base.record, prompt: recordPrompt } };
  const history = { records, earlierRecordsUnavailable: false, earlierRecordsPruned: false };
  return last === undefined ? { ...withRecord, deliveryHistory: history } : { ...withRecord, lastDelivery: last, deliveryHistory: history };
}

const promptChoice = fc.constantFrom<'record' | 'previous' | 'other' | 'none' | 'edited'>('record', 'previous', 'other', 'none', 'edited');

/** Rows whose receipts repeat, change and omit prompts in every order. */
const sharedPromptRowArb = fc.tuple(fc.integer({ min: 1, max: 500 }), fc.array(promptChoice, { maxLength: 12 })).map(([n, choices]) => {
  const prompts: Array<string | undefined> = [];
  for (const [i, choice] of choices.entries()) {
    const previous = prompts.at(-1);
    if (choice === 'record') prompts.push('Current prompt');
    else if (choice === 'previous') prompts.push(previous ?? 'Older prompt');
    else if (choice === 'other') prompts.push(`Prompt variant ${i % 3}`);
    else if (choice === 'edited') prompts.push('Older prompt');
    else prompts.push(undefined);
  }
  return rowWithPrompts(n, 'Current prompt', prompts);
});

describe('prompt snapshots in stored receipts', () => {
  it('a row stores a repeated prompt once: 200 receipts of a long prompt cost little more than the record', () => {
    const rowOf200 = rowWithPrompts(
      1,
      LONG,
      Array.from({ length: 200 }, () => LONG),
    );
    const text = encodeRow(rowOf200);
    expect(text.length).toBeLessThan(LONG.length + 200 * 200);
    expect(text.split(LONG).length - 1).toBe(1);
    expect(decodeRow(JSON.parse(text), 'test')).toEqual(rowOf200);
  });

  it('an edited prompt is stored once more, and receipts after the edit refer to the record again', () => {
    const edited = rowWithPrompts(2, 'New prompt', ['Old prompt', 'Old prompt', 'Old prompt', 'New prompt', 'New prompt']);
    const stored = JSON.parse(encodeRow(edited)) as { lastDelivery: object; deliveryHistory: { records: object[] } };
    expect(stored.deliveryHistory.records.map((r) => ('prompt' in r ? 'full' : (r as { promptRef: string }).promptRef))).toEqual([
      'full',
      'previous',
      'previous',
      'record',
      'record',
    ]);
    expect(stored.lastDelivery).toMatchObject({ promptRef: 'record' });
    expect(decodeRow(stored, 'test')).toEqual(edited);
  });

  it('round trip: rows sharing, changing and omitting prompts decode to themselves, and re-encode to the same text', () => {
    fc.assert(
      fc.property(sharedPromptRowArb, (r) => {
        const text = encodeRow(r);
        const decoded = decodeRow(JSON.parse(text), 'test');
        expect(decoded).toEqual(r);
        expect(encodeRow(decoded)).toBe(text);
        const receipts = decoded.deliveryHistory?.records ?? [];
        for (const [i, original] of (r.deliveryHistory?.records ?? []).entries()) {
          expect(Object.hasOwn(receipts[i] ?? {}, 'prompt')).toBe(original.prompt !== undefined);
        }
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('round trip: any valid domain still encodes and decodes to itself', () => {
    fc.assert(
      fc.property(domainArb(), (domain) => {
        const text = encodeDocument(domain);
        expect(decodeDocumentText(text)).toEqual(domain);
      }),
      { seed: SEED, numRuns: 200 },
    );
  });

  it('a receipt without prompt stays without one (legacy), next to referring receipts', () => {
    const legacy = rowWithPrompts(3, 'Current prompt', [undefined, 'Current prompt', undefined]);
    const stored = JSON.parse(encodeRow(legacy)) as { deliveryHistory: { records: Array<Record<string, unknown>> } };
    expect(stored.deliveryHistory.records.map((r) => Object.keys(r).sort().join())).toEqual([
      'deliveredAt,messageId,scheduledAt',
      'deliveredAt,messageId,promptRef,scheduledAt',
      'deliveredAt,messageId,scheduledAt',
    ]);
    const decoded = decodeRow(stored, 'test');
    expect(decoded).toEqual(legacy);
    expect(Object.hasOwn(decoded.deliveryHistory?.records[0] ?? {}, 'prompt')).toBe(false);
  });

  it('documents written with whole prompts in every receipt (older versions) still open', () => {
    const full = rowWithPrompts(4, 'Same', ['Same', 'Same']);
    const document = { version: 1, tasks: [JSON.parse(JSON.stringify(full))] };
    expect(decodeDocument(document).tasks).toEqual([full]);
  });

  const refused: Array<[string, (stored: Record<string, unknown>) => void, RegExp]> = [
    [
      'a reference to the previous receipt from the first one',
      (s) => setReceipt(s, 0, { promptRef: 'previous' }),
      /deliveryHistory\.records\[0\]\.promptRef .*previous/,
    ],
    [
      'a reference to the previous receipt when that one has no prompt',
      (s) => {
        setReceipt(s, 0, { prompt: undefined });
        setReceipt(s, 1, { promptRef: 'previous' });
      },
      /records\[1\]\.promptRef/,
    ],
    ['an unknown reference', (s) => setReceipt(s, 1, { promptRef: 'first' }), /records\[1\]\.promptRef must be "record" or "previous"/],
    ['a prompt and a reference together', (s) => setReceipt(s, 1, { prompt: 'x', promptRef: 'record' }), /records\[1\]/],
    [
      'a previous-reference in lastDelivery',
      (s) => Object.assign(s.lastDelivery as object, { promptRef: 'previous' }),
      /lastDelivery\.promptRef/,
    ],
  ];

  it.each(refused)('refuses %s with corrupt_schedule_log', (_name, damage, message) => {
    const good = rowWithPrompts(5, 'Same', ['Other', 'Same', 'Same']);
    const stored = JSON.parse(encodeRow(good)) as Record<string, unknown>;
    damage(stored);
    expect(() => decodeDocument({ version: 1, tasks: [stored] })).toThrow(
      expect.objectContaining({ code: 'corrupt_schedule_log', message: expect.stringMatching(message) }),
    );
  });

  it('history pages and catalog entries answer the whole prompt of every receipt', async () => {
    const h = await harness({ start: '2030-01-01T08:00:00.000Z' });
    const created = (await h.svc.callTool('s1', 'schedule_create', { prompt: 'First prompt', title: 't', every_seconds: 60 })) as {
      id: string;
    };
    await tick(h, MINUTE);
    await tick(h, MINUTE);
    await h.svc.callTool('s1', 'schedule_update', { id: created.id, prompt: 'Second prompt' });
    await tick(h, MINUTE);
    const page = (await h.svc.remote.history({ sessionId: 's1', id: created.id, limit: 10 })) as {
      records: ReadonlyArray<{ prompt?: string }>;
    };
    expect(page.records.map((r) => r.prompt)).toEqual(['Second prompt', 'First prompt', 'First prompt']);
    expect((await h.svc.remote.catalog())[0]?.lastDelivery?.prompt).toBe('Second prompt');
  });
});

function setReceipt(stored: Record<string, unknown>, index: number, fields: Record<string, unknown>): void {
  const history = stored.deliveryHistory as { records: Array<Record<string, unknown>> };
  const target = history.records[index] as Record<string, unknown>;
  delete target.prompt;
  delete target.promptRef;
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) target[key] = value;
}

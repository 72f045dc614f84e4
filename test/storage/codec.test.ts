// The domain codec: any valid domain encodes and decodes to itself (fast-check, fixed seed), the
// encoding is deterministic and canonical, rows without status read as active, stored targets
// and zone aliases are kept, and journal batch lines round-trip the same way.
import fc from 'fast-check';
import { decodeBatch, decodeDocument, decodeDocumentText, encodeBatch, encodeDocument } from '../../src/domain/codec/index.ts';
import { isCanonicalInstantText } from '../../src/domain/codec/instantText.ts';
import { parseCanonicalInstant } from '../../src/domain/instant.ts';
import { domainArb, row, rowArb } from './fixtures.ts';

const SEED = 20300101;

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
});

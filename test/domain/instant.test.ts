// Canonical instant text: formatting (with its recent answers kept), strict parsing, and the fast
// digit reader used on hot paths.
import fc from 'fast-check';
import { formatInstant, instantMs, MAX_INSTANT_MS, MIN_INSTANT_MS, parseCanonicalInstant } from '../../src/domain/time/instant.ts';

describe('instants', () => {
  it('instantMs reads canonical text exactly as Date.parse does, across years 0001-9999', () => {
    fc.assert(
      fc.property(fc.integer({ min: MIN_INSTANT_MS, max: MAX_INSTANT_MS }), (ms) => {
        const text = formatInstant(ms);
        expect(instantMs(text)).toBe(ms);
        expect(instantMs(text)).toBe(Date.parse(text));
      }),
      { seed: 20300101, numRuns: 20_000 },
    );
    for (const text of ['0001-01-01T00:00:00.000Z', '1970-01-01T00:00:00.000Z', '2000-02-29T23:59:59.999Z', '9999-12-31T23:59:59.999Z']) {
      expect(instantMs(text)).toBe(Date.parse(text));
    }
  });

  it('formatInstant answers Date#toISOString for any order of repeated instants (its recent answers are kept)', () => {
    const pool = [0, 1, 1_893_456_000_000, 1_893_459_600_000, 1_893_463_200_000, 253_402_300_799_999, MIN_INSTANT_MS];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pool), { maxLength: 40 }), (sequence) => {
        for (const ms of sequence) expect(formatInstant(ms)).toBe(new Date(ms).toISOString());
      }),
      { seed: 20301231, numRuns: 2_000 },
    );
  });

  it('parseCanonicalInstant accepts only the canonical form in range', () => {
    expect(parseCanonicalInstant('2030-01-01T08:00:00.000Z')).toBe(Date.parse('2030-01-01T08:00:00.000Z'));
    for (const bad of [
      '2030-01-01T08:00:00Z',
      '2030-02-30T00:00:00.000Z',
      '0000-12-31T23:59:59.999Z',
      '2030-01-01T08:00:00.000+00:00',
      '+010000-01-01T00:00:00.000Z',
    ]) {
      expect(parseCanonicalInstant(bad)).toBeNull();
    }
  });
});

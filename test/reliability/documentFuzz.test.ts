// Mutated stored documents at test scale (fixed seed; `npm run stress` runs many more): opening
// gives the whole domain the files describe or `corrupt_schedule_log` with the files untouched.
// See documentFuzz.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runs } from '../support/runs.ts';
import { fuzzDocuments } from './documentFuzz.ts';

const CASES = runs({ short: 400, long: 1_000 });

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agent-schedule-mutated-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('stored documents mutated from valid ones', () => {
  it('bit flips, truncation, dropped members, swapped types, duplicate ids: a whole domain or corrupt_schedule_log, files untouched', async () => {
    const figures = await fuzzDocuments(dir, { runs: CASES, seed: 7_301 });
    expect(figures.cases).toBeGreaterThan(CASES * 0.6);
    expect(figures.refused).toBeGreaterThan(CASES * 0.3);
    expect(figures.opened).toBeGreaterThan(CASES * 0.05);
    expect(figures.serviceChecks).toBeGreaterThan(CASES * 0.15);
  });
});

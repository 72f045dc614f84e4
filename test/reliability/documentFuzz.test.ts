// Mutated stored documents at CI scale (fixed seed; `npm run stress` runs many more): opening
// gives the whole domain the files describe or `corrupt_schedule_log` with the files untouched.
// See documentFuzz.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fuzzDocuments } from './documentFuzz.ts';

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agent-schedule-mutated-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('stored documents mutated from valid ones', () => {
  it('bit flips, truncation, dropped members, swapped types, duplicate ids: a whole domain or corrupt_schedule_log, files untouched', async () => {
    const figures = await fuzzDocuments(dir, { runs: 1_000, seed: 7_301 });
    expect(figures.cases).toBeGreaterThan(600);
    expect(figures.refused).toBeGreaterThan(300);
    expect(figures.opened).toBeGreaterThan(50);
    expect(figures.serviceChecks).toBeGreaterThan(150);
  });
});

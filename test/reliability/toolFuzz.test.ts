// Tool-argument fuzzing at test scale (fixed seeds; `npm run stress` runs the same properties with
// 1 000 000 handler-layer and 200 000 whole-service cases). The handler layer takes the bulk;
// the whole service — mailbox, slot runner, memory storage, notifications — takes a share of
// its own, so a refusal is also seen to write and announce nothing.
import { runs } from '../support/runs.ts';
import { fuzzToolHandlers, fuzzToolService } from './toolFuzz.ts';

const CI_HANDLER_CASES = runs({ short: 15_000, long: 50_000 });
const CI_SERVICE_CASES = runs({ short: 3_000, long: 10_000 });

describe('tool arguments of every shape and type', () => {
  it(`${CI_HANDLER_CASES} cases through the tool handlers: documented codes only, storable batches, no pollution`, () => {
    const figures = fuzzToolHandlers({ runs: CI_HANDLER_CASES, seed: 7_001 });
    expect(figures.cases).toBe(CI_HANDLER_CASES);
    expect(figures.accepted).toBeGreaterThan(CI_HANDLER_CASES / 50);
    expect(figures.codes.internal_error).toBeUndefined();
    expect(Object.keys(figures.codes).length).toBeGreaterThanOrEqual(8);
  });

  it(`${CI_SERVICE_CASES} cases through the whole service: never rejects, refusals write and announce nothing`, async () => {
    const figures = await fuzzToolService({ runs: CI_SERVICE_CASES, seed: 7_002 });
    expect(figures.cases).toBe(CI_SERVICE_CASES);
    expect(figures.accepted).toBeGreaterThan(CI_SERVICE_CASES / 50);
    expect(figures.codes.internal_error).toBeUndefined();
    expect(figures.codes.persistence_uncertain).toBeUndefined();
  });
});

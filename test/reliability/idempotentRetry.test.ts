// A client that abandons calls after a short timeout and sends them again with the same
// Idempotency-Key gets one task per create from a real Host process (the long form, 1 000 creates
// and on PostgreSQL with its connections being killed, runs in `npm run stress`).
import { runs } from '../support/runs.ts';
import { runIdempotentRetry } from './idempotentRetry.ts';

const CREATES = runs({ short: 40, long: 100 });

describe('retried creates with keys', () => {
  it(`${CREATES} creates, most attempts abandoned and sent again: ${CREATES} tasks, none twice`, async () => {
    const figures = await runIdempotentRetry({ creates: CREATES, seed: 7 });
    expect(figures.attempts).toBeGreaterThan(CREATES);
    expect(figures).toMatchObject({ tasks: CREATES, missing: 0, twice: 0 });
  });
});

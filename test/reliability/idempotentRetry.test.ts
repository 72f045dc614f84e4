// A client that abandons calls after a short timeout and sends them again with the same
// Idempotency-Key gets one task per create from a real Host process (the long form, 1 000 creates
// and on PostgreSQL with its connections being killed, runs in `npm run stress`).
import { runIdempotentRetry } from './idempotentRetry.ts';

describe('retried creates with keys', () => {
  it('100 creates, most attempts abandoned and sent again: 100 tasks, none twice', async () => {
    const figures = await runIdempotentRetry({ creates: 100, seed: 7 });
    expect(figures.attempts).toBeGreaterThan(100);
    expect(figures).toMatchObject({ tasks: 100, missing: 0, twice: 0 });
  });
});

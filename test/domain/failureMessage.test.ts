// The failure status's cause as a task keeps it: whole up to 2,000 characters, a longer one cut in
// the middle so its start (the operation) and its end (where a long path ends) both stay.
import { afterFailure, capFailureMessage, MAX_FAILURE_MESSAGE_LENGTH, sameFailure } from '../../src/domain/tasks/retry.ts';

describe('failure messages', () => {
  it('a message of at most 2,000 characters is kept whole', () => {
    expect(capFailureMessage('flush failed')).toBe('flush failed');
    const exact = 'x'.repeat(MAX_FAILURE_MESSAGE_LENGTH);
    expect(capFailureMessage(exact)).toBe(exact);
  });

  it('a longer one keeps its start and its end around " … ", 2,000 characters in all', () => {
    const message = `EACCES: permission denied, open '/${'a/'.repeat(3000)}transcript.jsonl'`;
    const capped = capFailureMessage(message);
    expect(capped).toHaveLength(MAX_FAILURE_MESSAGE_LENGTH);
    expect(capped.startsWith('EACCES: permission denied, open')).toBe(true);
    expect(capped.endsWith("transcript.jsonl'")).toBe(true);
    expect(capped).toContain(' … ');
  });

  it('never splits a surrogate pair at either cut', () => {
    for (const shift of [0, 1]) {
      const capped = capFailureMessage(`${'x'.repeat(shift)}${'😀'.repeat(2000)}`);
      expect(capped.length).toBeLessThanOrEqual(MAX_FAILURE_MESSAGE_LENGTH);
      expect(capped).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    }
  });

  it('afterFailure keeps the capped message, and counts attempts on from a restored status', () => {
    const now = Date.parse('2030-01-01T08:00:00.000Z');
    const restored = { attempts: 7, lastAt: '2030-01-01T07:55:00.000Z', stage: 'resolve' as const, message: 'down' };
    const next = afterFailure(
      { failure: restored },
      { stage: 'flush', message: 'y'.repeat(5000), retry: { initialMs: 1000, maxMs: 8000 } },
      now,
    );
    expect(next.failure).toMatchObject({ attempts: 8, stage: 'flush', nextRetryAt: '2030-01-01T08:00:01.000Z' });
    expect(next.failure.message).toHaveLength(MAX_FAILURE_MESSAGE_LENGTH);
    expect(sameFailure(next.failure, { ...next.failure })).toBe(true);
    expect(sameFailure(next.failure, { ...next.failure, attempts: 9 })).toBe(false);
    expect(sameFailure(undefined, next.failure)).toBe(false);
  });
});

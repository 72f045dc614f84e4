// The row codec's failure status and pause note: stored in the fixed key order, read back as
// written, a row without them read as before, a malformed one refused with corrupt_schedule_log
// naming the member (the journal's delivery deltas with them: codec.test.ts).
import { decodeDocument, encodeRecord, encodeRow } from '../../src/domain/codec/index.ts';
import type { DeliveryFailure, TaskRow } from '../../src/domain/tasks/types.ts';
import { row } from './fixtures.ts';

const FAILURE: DeliveryFailure = {
  attempts: 3,
  lastAt: '2030-01-01T08:01:03.000Z',
  stage: 'flush',
  message: 'fake Session s1: flush failed',
  nextRetryAt: '2030-01-01T08:01:07.000Z',
};
const PAUSED_AT = '2030-01-01T08:00:00.000Z';

/** Decodes one stored row the way a document is read. */
const decoded = (stored: Record<string, unknown>): TaskRow => decodeDocument({ version: 1, tasks: [stored] }).tasks[0] as TaskRow;

/** The message of the refusal of a stored row. */
function refusal(stored: Record<string, unknown>): string {
  try {
    decoded(stored);
  } catch (error) {
    return `${(error as { code: string }).code}: ${(error as Error).message}`;
  }
  return 'accepted';
}

describe('failure status and pause note in a stored row', () => {
  it('are written after pausedAt and triggeredAt in the fixed order, and read back as written', () => {
    const stored: TaskRow = {
      ...row(1),
      pausedAt: PAUSED_AT,
      pauseNote: 'Vendor outage',
      triggeredAt: '2030-01-01T08:00:30.000Z',
      failure: FAILURE,
    };
    const text = encodeRow(stored);
    expect(text).toBe(
      `{"sessionId":"s1","status":"active","record":${JSON.stringify(encodeRecord(row(1).record))},` +
        `"pausedAt":"${PAUSED_AT}","pauseNote":"Vendor outage","triggeredAt":"2030-01-01T08:00:30.000Z",` +
        '"failure":{"attempts":3,"lastAt":"2030-01-01T08:01:03.000Z","stage":"flush","message":"fake Session s1: flush failed","nextRetryAt":"2030-01-01T08:01:07.000Z"}}',
    );
    expect(decoded(JSON.parse(text))).toEqual(stored);
    const { nextRetryAt: _none, ...parked } = FAILURE;
    expect(decoded(JSON.parse(encodeRow({ ...row(2), failure: parked })))).toEqual({ ...row(2), failure: parked });
  });

  it('a row without them reads as before', () => {
    expect(decoded({ sessionId: 's1', record: encodeRecord(row(3).record) })).toEqual(row(3));
  });

  it('a malformed failure status or pause note is refused with corrupt_schedule_log naming the member', () => {
    const base = { sessionId: 's1', status: 'active', record: encodeRecord(row(1).record) };
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ ...base, failure: 'broken' }, /task "sch_1" \(tasks\[0\]\): failure must be an object/],
      [{ ...base, failure: { ...FAILURE, attempts: 0 } }, /failure\.attempts must be a whole number of at least 1/],
      [{ ...base, failure: { ...FAILURE, attempts: 1.5 } }, /failure\.attempts/],
      [{ ...base, failure: { ...FAILURE, lastAt: '2030-01-01' } }, /failure\.lastAt must be a canonical UTC instant/],
      [{ ...base, failure: { ...FAILURE, stage: 'deliver' } }, /failure\.stage must be one of "resolve", "followup", "flush", "commit"/],
      [{ ...base, failure: { ...FAILURE, message: 42 } }, /failure\.message must be a string of at most 2000 characters/],
      [{ ...base, failure: { ...FAILURE, message: 'x'.repeat(2001) } }, /failure\.message must be a string of at most 2000/],
      [{ ...base, failure: { ...FAILURE, nextRetryAt: null } }, /failure\.nextRetryAt must be a canonical UTC instant/],
      [{ ...base, failure: { ...FAILURE, cause: 'x' } }, /failure\.cause is not a known field/],
      [{ ...base, failure: { attempts: 1, lastAt: PAUSED_AT, stage: 'flush' } }, /failure\.message is missing/],
      [{ ...base, status: 'inactive', failure: FAILURE }, /failure cannot be stored on an inactive row/],
      [{ ...base, pausedAt: PAUSED_AT, pauseNote: '' }, /pauseNote must be a string of 1 to 500 characters/],
      [{ ...base, pausedAt: PAUSED_AT, pauseNote: 'x'.repeat(501) }, /pauseNote must be a string of 1 to 500 characters/],
      [{ ...base, pauseNote: 'why' }, /pauseNote can only be stored beside pausedAt/],
    ];
    for (const [stored, message] of cases) {
      const answer = refusal(stored);
      expect(answer).toMatch(/^corrupt_schedule_log: /);
      expect(answer).toMatch(message);
    }
  });
});

// Pausing, resuming and running a task now, purely (docs/management.md). A paused task stays
// active and keeps its record; `pausedAt` sits beside the record, so a pause never changes what a
// compare-and-set `expected` is compared with. On resume a one-shot keeps its target (delivered at
// once when it has passed); a recurring task whose target has passed moves to its first target
// strictly after the resume instant, so the occurrences missed while paused are not delivered.
// Run now records the request instant; the delivery it asks for is made as soon as the Session
// can take it, and its receipt says `trigger: "manual"`. A pause may carry a note (why it was
// paused), kept beside `pausedAt` and cleared with it.
import { describeValue } from '../args/argShape.ts';
import { ScheduleError } from '../errors.ts';
import { formatInstant, instantMs } from '../time/instant.ts';
import { nextTargetAfter } from '../time/recurrence.ts';
import { ruleFromRecord } from './records.ts';
import { isRecurringKind, type TaskRow } from './types.ts';

/** The longest pause note. */
export const MAX_PAUSE_NOTE_LENGTH = 500;

/**
 * A pause note as given to a pause (`remote.pause`'s `note`, `remote.update`'s `pauseNote`),
 * trimmed; undefined when none was given.
 *
 * @throws ScheduleError `invalid_selector` for anything but a string of 1 to 500 characters that is not blank.
 */
export function checkPauseNote(value: unknown, name = 'note'): string | undefined {
  if (value === undefined) return undefined;
  const note = typeof value === 'string' ? value.trim() : '';
  if (note.length === 0 || note.length > MAX_PAUSE_NOTE_LENGTH) {
    const got = typeof value === 'string' && value.length > 60 ? `a string of ${value.length} characters` : describeValue(value);
    throw new ScheduleError(
      'invalid_selector',
      `${name} must be a string of 1 to ${MAX_PAUSE_NOTE_LENGTH} characters, not blank; got ${got}.`,
    );
  }
  return note;
}

/**
 * The row paused at `now`, with `note` when one is given. A paused row keeps its pause instant:
 * it is returned as it is, or — given another note — with that note in place of its own.
 */
export function pauseRow(row: TaskRow, now: number, note?: string): TaskRow {
  if (row.pausedAt !== undefined) return note === undefined || note === row.pauseNote ? row : { ...row, pauseNote: note };
  const paused = { ...row, pausedAt: formatInstant(now) };
  return note === undefined ? paused : { ...paused, pauseNote: note };
}

/** The row resumed at `now` (its pause note goes with its pause); a row that is not paused is returned as it is. */
export function resumeRow(row: TaskRow, now: number): TaskRow {
  if (row.pausedAt === undefined) return row;
  const { pausedAt: _, pauseNote: __, ...resumed } = row;
  const committed = instantMs(row.record.scheduledAt);
  if (!isRecurringKind(row.record.kind) || committed > now) return resumed;
  const next = nextTargetAfter(ruleFromRecord(row.record), committed, now);
  // A rule with no target left before year 10000 keeps its passed target and is delivered once more.
  if (next === null) return resumed;
  return { ...resumed, record: { ...row.record, scheduledAt: formatInstant(next) } };
}

/** The row with a run-now request at `now`; an earlier request still waiting is kept. */
export function triggerRow(row: TaskRow, now: number): TaskRow {
  if (row.triggeredAt !== undefined) return row;
  return { ...row, triggeredAt: formatInstant(now) };
}

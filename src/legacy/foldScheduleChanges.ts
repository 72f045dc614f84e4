// The fold of a Session's legacy `schedule/change` events into its active reminders (docs/storage.md).
// Strict: a reused id (even after its record ended) and a delete or dispatch of a record that is
// not active reject the whole log with `corrupt_schedule_log`. Delete ends any record; dispatch
// ends a one-shot (`after`, `at`) and leaves a fixed-rate `every` record active, since it records
// one delivery of a rule that goes on. A fork folds only the events at index ≥ its `seedLength`,
// so it keeps the parent's history without adopting the parent's active reminders.
import { ScheduleError } from '../domain/errors.ts';
import { decodeScheduleChange } from './decodeScheduleChange.ts';
import type { LegacyScheduleRecord } from './types.ts';

/** Options of {@link foldScheduleChanges}. */
export interface FoldOptions {
  /** For a fork: the number of events inherited from the parent, which are not folded. */
  readonly seedLength?: number;
}

/**
 * Folds a Session's `schedule/change` events (in log order) to its active legacy records, keyed by
 * id in creation order.
 *
 * @throws ScheduleError `corrupt_schedule_log` for an invalid event or transition.
 */
export function foldScheduleChanges(events: readonly unknown[], options: FoldOptions = {}): Map<string, LegacyScheduleRecord> {
  const seedLength = options.seedLength ?? 0;
  if (!Number.isSafeInteger(seedLength) || seedLength < 0) {
    throw new ScheduleError('corrupt_schedule_log', `seedLength must be a non-negative integer, found ${String(seedLength)}`);
  }
  const active = new Map<string, LegacyScheduleRecord>();
  const seen = new Set<string>();
  for (let index = seedLength; index < events.length; index++) {
    const where = `schedule/change event ${index}`;
    const change = decodeScheduleChange(events[index], where);
    if (change.operation === 'create') {
      const { id } = change.schedule;
      if (seen.has(id))
        throw new ScheduleError('corrupt_schedule_log', `${where}: create reuses id ${JSON.stringify(id)}; ids are never reused`);
      seen.add(id);
      active.set(id, change.schedule);
      continue;
    }
    const record = active.get(change.id);
    if (record === undefined) {
      throw new ScheduleError(
        'corrupt_schedule_log',
        `${where}: ${change.operation} of ${JSON.stringify(change.id)}, which is not an active reminder`,
      );
    }
    if (change.operation === 'delete' || record.kind !== 'every') active.delete(change.id);
  }
  return active;
}

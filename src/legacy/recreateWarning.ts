// The warning logged when a Session is loaded whose legacy log still has active reminders
// (docs/storage.md): they are never migrated into the Host's task table, so the user is asked to
// recreate them with `schedule_create`.
import type { LegacyScheduleRecord } from './types.ts';

/** A log entry: message plus structured data for the Host's logger. */
export interface LegacyRecreateWarning {
  readonly message: string;
  readonly data: {
    readonly sessionId: string;
    readonly reminders: ReadonlyArray<LegacyScheduleRecord>;
  };
}

const label = (record: LegacyScheduleRecord): string =>
  `${JSON.stringify(record.id)}${record.title === undefined ? '' : ` (${JSON.stringify(record.title)})`} ${record.kind} due ${record.scheduledAt}`;

/**
 * The warning for a Session's folded active legacy reminders, or `null` when there are none.
 * Pass it to `logger.warn(message, data)`.
 */
export function legacyRecreateWarning(sessionId: string, active: ReadonlyMap<string, LegacyScheduleRecord>): LegacyRecreateWarning | null {
  if (active.size === 0) return null;
  const reminders = [...active.values()];
  const count = reminders.length === 1 ? '1 active reminder' : `${reminders.length} active reminders`;
  return {
    message:
      `Session ${JSON.stringify(sessionId)} has ${count} in its legacy session-local schedule log ` +
      `(${reminders.map(label).join('; ')}). They are no longer delivered and are not migrated: ` +
      'recreate them with schedule_create.',
    data: { sessionId, reminders },
  };
}

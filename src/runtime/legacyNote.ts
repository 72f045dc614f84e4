// What the service does when the Host loads a Session carrying legacy `schedule/change` events
// (docs/storage.md): fold them strictly and, when reminders are still active there, log the warning that
// asks to recreate them with `schedule_create`. They are never migrated.
import { foldScheduleChanges } from '../legacy/foldScheduleChanges.ts';
import { legacyRecreateWarning } from '../legacy/recreateWarning.ts';
import type { LegacyScheduleRecord } from '../legacy/types.ts';
import type { Logger } from '../ports.ts';

/** The folded active legacy reminders and the warning logged for them (null when none). */
export interface LegacyNote {
  readonly active: ReadonlyMap<string, LegacyScheduleRecord>;
  readonly warning: string | null;
}

/** Folds the events (throws `corrupt_schedule_log` on a bad log) and logs the recreate warning. */
export function noteLegacySession(logger: Logger, sessionId: string, events: unknown[], options?: { seedLength?: number }): LegacyNote {
  const active = foldScheduleChanges(events, options);
  const warning = legacyRecreateWarning(sessionId, active);
  if (warning !== null) logger.warn(warning.message, warning.data);
  return { active, warning: warning?.message ?? null };
}

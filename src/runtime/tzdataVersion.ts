// The version of the time-zone data this process resolves zones with. temporal-polyfill reads
// zone offsets through `Intl.DateTimeFormat`, that is through the ICU data Node ships, whose
// zone-data version Node reports as `process.versions.tz`. A Node built without it reports only
// its ICU version (`icu-<version>`), and one without ICU `unknown`. Also the warning an open
// logs when the domain's targets or recorded version do not match the data in use.

import type { TaskRow } from '../domain/tasks/types.ts';
import { driftedCount } from '../domain/time/drift.ts';
import type { Logger } from '../ports.ts';

/** The time-zone data version in use, e.g. `2025c`. */
export function currentTzdata(): string {
  const versions: Readonly<Record<string, string | undefined>> = process.versions;
  const tz = versions.tz;
  if (tz !== undefined && tz.length > 0) return tz;
  const icu = versions.icu;
  return icu !== undefined && icu.length > 0 ? `icu-${icu}` : 'unknown';
}

/**
 * At open: one structured warning when the domain records another time-zone data version than
 * the one in use, or when some wall-clock target is not an occurrence of its rule under the
 * current data (the count and both versions; the targets stay as they are until re-anchored).
 * Every active wall-clock target is checked even when the recorded version is the one in use: a
 * target written under older data stays drifted until it is re-anchored, while the next commit
 * already records the newer version.
 */
export function warnOfDriftAtOpen(rows: Iterable<TaskRow>, recorded: string | undefined, logger: Logger): void {
  const tzdata = currentTzdata();
  const drifted = driftedCount(rows);
  if (drifted === 0 && (recorded === undefined || recorded === tzdata)) return;
  logger.warn(
    `${drifted} task target(s) are not occurrences of their rule under the time-zone data in use (${tzdata}; the schedule was written with ${recorded ?? 'an unrecorded version'}). They are left as they are; remote.drift() lists them and remote.reanchor() moves them.`,
    { drifted, tzdata, writtenWith: recorded ?? null },
  );
}

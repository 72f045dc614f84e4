// Narrowing a recurring-reminder batch (the `[SCHEDULE REMINDER BATCH]` framing of docs/delivery.md) to
// some of its reminders. After a crash between a Session's flush and the scheduler's row write,
// the scheduler delivers the same occurrence again — possibly in a batch together with reminders
// that fell due since. The Session drops the ones it already holds and appends the rest, in the
// same framing, so no reminder ever appears twice in a transcript.

const BATCH_HEADER = '[SCHEDULE REMINDER BATCH]';
const REMINDERS_PREFIX = 'reminders_json: ';

/** The idempotency key of a batch entry (`<schedule_id>@<occurrence_at>`), or undefined for a malformed entry. */
function keyOf(entry: unknown): string | undefined {
  const e = entry as { schedule_id?: unknown; occurrence_at?: unknown } | null;
  return typeof e?.schedule_id === 'string' && typeof e.occurrence_at === 'string' ? `${e.schedule_id}@${e.occurrence_at}` : undefined;
}

/**
 * The batch message `text` holding only the reminders whose keys are in `keep`, in their order.
 * Undefined when `text` is not a batch whose reminders carry exactly the keys `keys`.
 */
export function keepReminders(text: string, keys: readonly string[], keep: ReadonlySet<string>): string | undefined {
  const lines = text.split('\n');
  const last = lines.length - 1;
  const list = lines[last];
  if (lines[0] !== BATCH_HEADER || last < 1 || list?.startsWith(REMINDERS_PREFIX) !== true) return undefined;
  let entries: unknown;
  try {
    entries = JSON.parse(list.slice(REMINDERS_PREFIX.length));
  } catch {
    return undefined;
  }
  if (!Array.isArray(entries)) return undefined;
  const entryKeys = entries.map(keyOf);
  const expected = new Set(keys);
  if (entryKeys.length !== expected.size || entryKeys.some((key) => key === undefined || !expected.has(key))) return undefined;
  const kept = entries.filter((_, i) => keep.has(entryKeys[i] ?? ''));
  return [...lines.slice(0, last), `${REMINDERS_PREFIX}${JSON.stringify(kept)}`].join('\n');
}

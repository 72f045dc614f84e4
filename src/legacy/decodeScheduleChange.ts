// The strict decoder of the legacy `schedule/change` event (docs/storage.md). It accepts exactly the
// version-1 shapes — no extra field anywhere, a known operation, a valid record — and returns a
// fresh value equal to its input. `title` is optional in this log (old Sessions wrote none) but
// validated like a stored title when present. Every failure is `corrupt_schedule_log`.

import { isStoredPrompt, isStoredTitle, MAX_TITLE_LENGTH } from '../domain/args/fields.ts';
import { corrupt, describe, isBoundedString, isSafeIntegerAtLeast, readObject, type Where } from '../domain/codec/strict.ts';
import { parseCanonicalInstant } from '../domain/time/instant.ts';
import type { LegacyScheduleChange, LegacyScheduleRecord } from './types.ts';

/** Longest accepted legacy record id. */
export const MAX_LEGACY_ID_LENGTH = 256;

/** The smallest legacy fixed-rate interval, as for current records. */
const MIN_EVERY_SECONDS = 60;

const KIND_FIELDS = { after: ['afterSeconds'], at: [], every: ['everySeconds'] } as const;

function readId(value: unknown, where: Where, field: string): string {
  if (!isBoundedString(value, MAX_LEGACY_ID_LENGTH) || value.trim() !== value) {
    corrupt(
      where,
      field,
      `must be a non-empty id without surrounding whitespace (at most ${MAX_LEGACY_ID_LENGTH} characters), found ${describe(value)}`,
    );
  }
  return value;
}

function decodeLegacyRecord(value: unknown, where: Where): LegacyScheduleRecord {
  const kind = readObject(
    value,
    where,
    'schedule',
    ['kind'],
    ['id', 'prompt', 'scheduledAt', 'title', 'afterSeconds', 'everySeconds'],
  ).kind;
  if (kind !== 'after' && kind !== 'at' && kind !== 'every')
    corrupt(where, 'schedule.kind', `must be "after", "at" or "every", found ${describe(kind)}`);
  const raw = readObject(value, where, 'schedule', ['id', 'kind', 'prompt', 'scheduledAt', ...KIND_FIELDS[kind]], ['title']);
  const id = readId(raw.id, where, 'schedule.id');
  if (!isStoredPrompt(raw.prompt)) corrupt(where, 'schedule.prompt', `must be a trimmed, non-blank string, found ${describe(raw.prompt)}`);
  if (typeof raw.scheduledAt !== 'string' || parseCanonicalInstant(raw.scheduledAt) === null) {
    corrupt(
      where,
      'schedule.scheduledAt',
      `must be a canonical UTC instant "YYYY-MM-DDTHH:mm:ss.sssZ", found ${describe(raw.scheduledAt)}`,
    );
  }
  const base = { id, prompt: raw.prompt, scheduledAt: raw.scheduledAt };
  const titled = <R extends LegacyScheduleRecord>(record: R): R => {
    if (!Object.hasOwn(raw, 'title')) return record;
    if (!isStoredTitle(raw.title)) {
      corrupt(
        where,
        'schedule.title',
        `must be a trimmed, non-blank string of at most ${MAX_TITLE_LENGTH} characters when present, found ${describe(raw.title)}`,
      );
    }
    return { ...record, title: raw.title };
  };
  switch (kind) {
    case 'after':
      if (!isSafeIntegerAtLeast(raw.afterSeconds, 1))
        corrupt(where, 'schedule.afterSeconds', `must be a positive safe integer, found ${describe(raw.afterSeconds)}`);
      return titled({ ...base, kind, afterSeconds: raw.afterSeconds });
    case 'at':
      return titled({ ...base, kind });
    case 'every':
      if (!isSafeIntegerAtLeast(raw.everySeconds, MIN_EVERY_SECONDS)) {
        corrupt(
          where,
          'schedule.everySeconds',
          `must be a safe integer of at least ${MIN_EVERY_SECONDS}, found ${describe(raw.everySeconds)}`,
        );
      }
      return titled({ ...base, kind, everySeconds: raw.everySeconds });
  }
}

/**
 * Decodes one legacy `schedule/change` event strictly.
 *
 * @param where names the event in messages (default `schedule/change event`).
 * @throws ScheduleError `corrupt_schedule_log` naming the field.
 */
export function decodeScheduleChange(value: unknown, where: Where = 'schedule/change event'): LegacyScheduleChange {
  const head = readObject(value, where, '', ['version', 'operation'], ['schedule', 'id']);
  if (head.version !== 1) corrupt(where, 'version', `must be 1 (the only version of this log), found ${describe(head.version)}`);
  switch (head.operation) {
    case 'create': {
      const raw = readObject(value, where, '', ['version', 'operation', 'schedule']);
      return { version: 1, operation: 'create', schedule: decodeLegacyRecord(raw.schedule, where) };
    }
    case 'delete':
    case 'dispatch': {
      const raw = readObject(value, where, '', ['version', 'operation', 'id']);
      return { version: 1, operation: head.operation, id: readId(raw.id, where, 'id') };
    }
    default:
      return corrupt(where, 'operation', `must be "create", "delete" or "dispatch", found ${describe(head.operation)}`);
  }
}

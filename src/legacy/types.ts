// The records and events of the session-local log some Sessions still carry (docs/storage.md),
// read so their `schedule/change` events can be folded: one-shot `after` / `at` and fixed-rate
// `every` records, and the create / delete / dispatch changes that are that log's only authority.

interface LegacyRecordBase {
  /** Session-local id, unique and never reused within the Session. */
  readonly id: string;
  /** Trimmed, non-empty. */
  readonly prompt: string;
  /** Canonical UTC target. */
  readonly scheduledAt: string;
  /** Optional in the legacy log; trimmed, 1–120 characters when present. */
  readonly title?: string;
}

/** A legacy one-shot created from a delay. */
export interface LegacyAfterRecord extends LegacyRecordBase {
  readonly kind: 'after';
  readonly afterSeconds: number;
}

/** A legacy one-shot created from an absolute instant. */
export interface LegacyAtRecord extends LegacyRecordBase {
  readonly kind: 'at';
}

/** A legacy fixed-rate reminder. */
export interface LegacyEveryRecord extends LegacyRecordBase {
  readonly kind: 'every';
  readonly everySeconds: number;
}

/** A record of the session-local log. */
export type LegacyScheduleRecord = LegacyAfterRecord | LegacyAtRecord | LegacyEveryRecord;

/** Creates one record. */
export interface LegacyScheduleCreateChange {
  readonly version: 1;
  readonly operation: 'create';
  readonly schedule: LegacyScheduleRecord;
}

/** Deletes one active record. */
export interface LegacyScheduleDeleteChange {
  readonly version: 1;
  readonly operation: 'delete';
  readonly id: string;
}

/** Records that one active record's follow-up was queued. */
export interface LegacyScheduleDispatchChange {
  readonly version: 1;
  readonly operation: 'dispatch';
  readonly id: string;
}

/** A version-1 `schedule/change` event. */
export type LegacyScheduleChange = LegacyScheduleCreateChange | LegacyScheduleDeleteChange | LegacyScheduleDispatchChange;

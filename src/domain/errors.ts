// The one error class of the project and its stable codes (docs/errors.md). Every failure a caller can
// see carries one of these codes and a message that says what was wrong and what is accepted.

export const ERROR_CODES = [
  'invalid_prompt',
  'invalid_selector',
  'invalid_rule',
  'invalid_time_zone',
  'not_future',
  'time_out_of_range',
  'schedule_not_found',
  'schedule_ended',
  'schedule_conflict',
  'delivery_cursor_not_found',
  'persistence_uncertain',
  'idempotency_conflict',
  'storage_locked',
  'unknown_tool',
  'owner_unavailable',
  'corrupt_schedule_log',
  'internal_error',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** What one error code tells a caller: the catalog a person reads in docs/errors.md (`npm run docs`). */
export interface ErrorCodeInfo {
  /** What went wrong, in a sentence or two. */
  readonly meaning: string;
  /**
   * The calls that answer it: model tools by name (through `callTool`), `remote.*` and `archive.*`
   * methods of the service, the service's own `createScheduleService`, `callTool` and `close`, and
   * exported functions.
   */
  readonly answeredBy: readonly string[];
  /** What the caller should do next. */
  readonly nextStep: string;
}

/** Every tool and every remote method: the calls that can answer a malformed request or an unexpected failure. */
const EVERY_CALL = [
  'schedule_create',
  'schedule_update',
  'schedule_delete',
  'schedule_list',
  'callTool',
  'remote.catalog',
  'remote.get',
  'remote.list',
  'remote.history',
  'remote.update',
  'remote.delete',
  'remote.counts',
  'remote.bulk',
] as const;

/** The calls a `callId` makes idempotent (SPEC §15): the mutating tools and remote methods. */
export const IDEMPOTENT_CALLS = [
  'schedule_create',
  'schedule_update',
  'schedule_delete',
  'remote.update',
  'remote.delete',
  'remote.pause',
  'remote.resume',
  'remote.trigger',
  'remote.reanchor',
  'remote.bulk',
] as const;

/** Every error code with its meaning, the calls that answer it and what to do next. */
export const ERROR_CATALOG: { readonly [Code in ErrorCode]: ErrorCodeInfo } = {
  invalid_prompt: {
    meaning:
      'The prompt or the title is missing, not a string, blank after trimming, or longer than its maximum length; the message names which and the limit.',
    answeredBy: ['schedule_create', 'schedule_update', 'remote.update'],
    nextStep: 'Send a non-blank prompt and title within the limits. Nothing was created or changed.',
  },
  invalid_selector: {
    meaning:
      'The request has the wrong shape: not exactly one timing selector, an argument or member the call does not take (named in the message), a malformed or skipped local `at`, a `change` of a kind that cannot be set, tool arguments or a remote request that are not an object, a missing or non-string `id` of a tool, a missing or non-string `sessionId` of a remote request, or a `callId` that is not a string of 1 to 256 characters.',
    answeredBy: [...EVERY_CALL, 'parseTimingSelector'],
    nextStep: 'Fix the request as the message says (it lists what is accepted) and send it again. Nothing was written.',
  },
  invalid_rule: {
    meaning:
      'A timing value is not accepted: a delay or interval that is not a whole number in range, a time of day that is not `HH:mm:ss[.sss]`, weekdays that are not distinct integers 1–7, a cron expression outside the 5-field dialect (the message names the field), or a history `limit` that is not an integer from 1 to 100 (a catalog page `limit`: 1 to 500).',
    answeredBy: ['schedule_create', 'schedule_update', 'remote.update', 'remote.history', 'remote.catalog', 'parseTimingSelector'],
    nextStep: 'Correct the value the message names. Nothing was written.',
  },
  invalid_time_zone: {
    meaning:
      'The time zone is not `UTC` or an IANA `Area/Location` name known to the runtime; offsets such as `+08:00` and names such as `EST` or `GMT` are refused.',
    answeredBy: ['schedule_create', 'schedule_update', 'remote.update', 'parseTimingSelector'],
    nextStep: 'Send an IANA zone name such as `Europe/Berlin` or `America/New_York`, or `UTC`.',
  },
  not_future: {
    meaning: 'An `at` instant is not strictly in the future at the moment the call is accepted (even when it equals the stored target).',
    answeredBy: ['schedule_create', 'schedule_update', 'remote.update'],
    nextStep: 'Choose a later instant, or use `after_seconds` for a delay from now.',
  },
  time_out_of_range: {
    meaning:
      'The first target would lie outside UTC years 0001–9999: an instant or delay too far away, or a rule with no target before year 10000 (including one that can never match, such as `0 0 30 2 *`).',
    answeredBy: ['schedule_create', 'schedule_update', 'remote.update'],
    nextStep: 'Choose a rule or instant that falls before the end of year 9999.',
  },
  schedule_not_found: {
    meaning:
      'No task with that id is stored for that Session: it never existed, it was deleted, or it belongs to another Session (which is never revealed). `schedule_delete` and `remote.delete` answer it as `{id, deleted: false, code}`; `remote.bulk` counts such tasks under `skipped`.',
    answeredBy: [
      'schedule_update',
      'schedule_delete',
      'remote.get',
      'remote.history',
      'remote.update',
      'remote.delete',
      'remote.pause',
      'remote.resume',
      'remote.trigger',
      'remote.bulk',
    ],
    nextStep: "List the Session's tasks (`schedule_list`, `remote.list` or `remote.catalog`) to find the right id.",
  },
  schedule_ended: {
    meaning:
      'The task is inactive: a one-shot that was delivered, or a rule with no further target. Only active tasks can be updated, paused, resumed or run now (`remote.bulk` counts the others under `skipped`).',
    answeredBy: ['schedule_update', 'remote.update', 'remote.pause', 'remote.resume', 'remote.trigger', 'remote.bulk'],
    nextStep: 'Create a new task instead; the ended one can still be read (`remote.get`, `remote.history`) or deleted.',
  },
  schedule_conflict: {
    meaning:
      'The stored record differs from `expected`: a delivery, a target advance or another edit changed the task after it was read. Nothing was written.',
    answeredBy: ['remote.update'],
    nextStep: 'Read the task again (`remote.get`), reapply the edit to the current record, and send it with that record as `expected`.',
  },
  delivery_cursor_not_found: {
    meaning: '`before` is not the message id of a saved delivery of this task (it may have been pruned by retention).',
    answeredBy: ['remote.history'],
    nextStep: 'Start again from the newest page (no `before`) and page on with the `nextBefore` values it returns.',
  },
  persistence_uncertain: {
    meaning:
      'A change could not be confirmed as saved: the storage failed during the write, so it may or may not have landed. The service did not apply it in memory.',
    answeredBy: [
      'schedule_create',
      'schedule_update',
      'schedule_delete',
      'remote.update',
      'remote.delete',
      'remote.bulk',
      'archive.sessionStop',
      'close',
    ],
    nextStep:
      'Read the tasks again (`schedule_list`, `remote.catalog`) to see whether the change is there before retrying; fix the storage (disk space, permissions) if it keeps failing.',
  },
  idempotency_conflict: {
    meaning:
      'The call carries a `callId` (or an `Idempotency-Key`) that this Session already used for another call: another tool or method, or other arguments. Remembered calls are kept for 24 hours.',
    answeredBy: IDEMPOTENT_CALLS,
    nextStep: 'A retry must repeat the first call exactly; a new call needs a new `callId`. Nothing was written.',
  },
  storage_locked: {
    meaning:
      'The stored schedule is held by another running scheduler: the lock file beside `schedule.json`, or the owner lock of a PostgreSQL schema. The message names the holder.',
    answeredBy: ['createScheduleService', 'jsonFileStorage', 'postgresStorage'],
    nextStep:
      'Close the scheduler that holds it (a lock left by a process that has ended is taken over at once). Several Hosts on one PostgreSQL schema need the cluster service, which shares it by shards.',
  },
  unknown_tool: {
    meaning: 'The tool name is not one of the schedule tools (`schedule_create`, `schedule_list`, `schedule_update`, `schedule_delete`).',
    answeredBy: ['callTool'],
    nextStep: 'Call one of the tools `toolDefinitions` lists. Nothing was written.',
  },
  owner_unavailable: {
    meaning:
      'Several Hosts share the schedule and the call named a Session whose shard another Host holds, but no Host took the call before its deadline (or it could not be handed over): it was withdrawn, and nothing ran.',
    answeredBy: ['createClusterService'],
    nextStep:
      'Send it again shortly; if it keeps happening, check that the Hosts are running and hold the shards (the cluster_hosts and shard_leases tables).',
  },
  corrupt_schedule_log: {
    meaning:
      'Stored data cannot be read as a valid domain: an unreadable `schedule.json` or journal, malformed JSON, an unknown version or an invalid task row — or a legacy `schedule/change` log that breaks its rules. The files are left byte-for-byte as they were.',
    answeredBy: ['createScheduleService', 'decodeScheduleChange', 'foldScheduleChanges', 'noteLegacySession'],
    nextStep:
      'Repair or restore the file the message names (the same ids reopen once it is valid); the service refuses to start rather than open a partial domain.',
  },
  internal_error: {
    meaning:
      'An unexpected failure (logged with its cause), or a call made after `close()`. The model-facing message is always "The schedule operation failed."',
    answeredBy: [...EVERY_CALL, 'createScheduleService'],
    nextStep: "Report it with the Host's log; a call after `close()` needs a new service.",
  },
};

/** The fixed message of an unexpected failure at the tool boundary. */
export const INTERNAL_ERROR_MESSAGE = 'The schedule operation failed.';

/** A failure with a stable code from docs/errors.md. */
export class ScheduleError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ScheduleError';
    this.code = code;
  }

  /** The JSON failure value tools and the remote namespace return. */
  toFailure(): Failure {
    return { code: this.code, message: this.message };
  }
}

/** A failure as a JSON value: `{code, message}`. */
export interface Failure {
  readonly code: ErrorCode;
  readonly message: string;
}

export const isScheduleError = (value: unknown): value is ScheduleError => value instanceof ScheduleError;

// The one error class of the project and its stable codes (SPEC §8). Every failure a caller can
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
  'corrupt_schedule_log',
  'internal_error',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** The fixed message of an unexpected failure at the tool boundary. */
export const INTERNAL_ERROR_MESSAGE = 'The schedule operation failed.';

/** A failure with a stable code from SPEC §8. */
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

export const isErrorCode = (value: unknown): value is ErrorCode =>
  typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);

/** Shorthand for `new ScheduleError(code, message)`. */
export const scheduleError = (code: ErrorCode, message: string, cause?: unknown): ScheduleError =>
  cause === undefined ? new ScheduleError(code, message) : new ScheduleError(code, message, { cause });

// How the console's HTTP API reports failures. The body of every failure is `{code, message}` (a
// delete that found nothing keeps its `{id, deleted: false, code}`): error codes for everything
// the schedule service decides, and a few codes of its own for what the HTTP layer refuses before
// the service sees it. The status is derived from the code.
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** Codes of the HTTP layer itself (never produced by the service), listed in docs/console.md. */
export type ConsoleErrorCode =
  | 'invalid_request'
  | 'invalid_session_id'
  | 'unsupported_media_type'
  | 'body_too_large'
  | 'origin_not_allowed'
  | 'host_not_allowed'
  | 'not_authorized'
  | 'route_not_found'
  | 'request_timeout'
  | 'too_many_streams'
  | 'host_stopping';

const STATUS: Readonly<Record<string, ContentfulStatusCode>> = {
  invalid_prompt: 400,
  invalid_selector: 400,
  invalid_rule: 400,
  invalid_time_zone: 400,
  not_future: 400,
  time_out_of_range: 400,
  delivery_cursor_not_found: 400,
  schedule_not_found: 404,
  schedule_ended: 409,
  schedule_conflict: 409,
  persistence_uncertain: 503,
  idempotency_conflict: 422,
  unknown_tool: 404,
  storage_locked: 503,
  corrupt_schedule_log: 500,
  internal_error: 500,
  invalid_request: 400,
  invalid_session_id: 400,
  unsupported_media_type: 415,
  body_too_large: 413,
  origin_not_allowed: 403,
  host_not_allowed: 403,
  not_authorized: 403,
  route_not_found: 404,
  request_timeout: 408,
  too_many_streams: 503,
  host_stopping: 503,
};

/** The HTTP status for a failure code. */
export const statusOf = (code: string): ContentfulStatusCode => STATUS[code] ?? 500;

/** A failure refused by the HTTP layer. */
export class ConsoleHttpError extends Error {
  constructor(
    readonly code: ConsoleErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ConsoleHttpError';
  }
}

/** Sends `{code, message}` with the code's status. */
export const sendFailure = (c: Context, code: string, message: string): Response => c.json({ code, message }, statusOf(code));

/**
 * Sends a service result: a value carrying a `code` (a failure, or a delete that found nothing)
 * gets that code's status; anything else is 200.
 */
export function sendResult(c: Context, value: unknown): Response {
  const code = typeof value === 'object' && value !== null ? (value as { code?: unknown }).code : undefined;
  return c.json(value as object, typeof code === 'string' ? statusOf(code) : 200);
}

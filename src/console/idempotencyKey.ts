// The `Idempotency-Key` request header of the HTTP API: on a tool call or a remote write it is the
// call's `callId` (SPEC §15), so a client that retries after a timeout or a 503
// (`persistence_uncertain`) with the same key gets the first answer and no second change. The
// service checks the key (1 to 256 characters) like any caller's.
import type { Context } from 'hono';

/** The header's name. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** The call options a request's `Idempotency-Key` header gives: `{ callId }`, or none without the header. */
export function idempotencyOf(c: Context): { callId: string } | undefined {
  const key = c.req.header(IDEMPOTENCY_KEY_HEADER);
  return key === undefined ? undefined : { callId: key };
}

// The test clock (only when the Host was started with SCHEDULE_TEST_CLOCK), a route the Host adds
// to its console: `POST /api/test/clock` with `{"advanceMs": n}` or `{"set": "<RFC 3339>"}`
// moves the manual clock, fires the timers that fall due, waits until the service is idle, tells
// the page (a `clock` event) and answers `{now}`. Without a test clock the route does not exist.
import type { ConsoleEvent, ConsoleRoute } from '../src/console/index.ts';
import type { ScheduleService } from '../src/index.ts';
import type { ManualClock } from '../src/testing.ts';

const refuse = (code: string, message: string, status: number): Response => Response.json({ code, message }, { status });

/** The JSON object body of `request`, or the refusal to send instead. */
async function jsonObject(request: Request): Promise<Record<string, unknown> | Response> {
  if (!/^application\/json\s*(;|$)/i.test(request.headers.get('content-type') ?? ''))
    return refuse('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.', 415);
  // A body that does not arrive in time fails here, and the console answers `request_timeout`.
  const text = await request.text();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return refuse('invalid_request', 'The request body is not valid JSON.', 400);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return refuse('invalid_request', 'The request body must be a JSON object.', 400);
  return value as Record<string, unknown>;
}

/** The route moving `clock`; `emit` sends the page the new time. */
export function testClockRoute(service: ScheduleService, clock: ManualClock, emit: (event: ConsoleEvent) => void): ConsoleRoute {
  return {
    method: 'POST',
    path: '/api/test/clock',
    async handle(request) {
      const body = await jsonObject(request);
      if (body instanceof Response) return body;
      const keys = Object.keys(body);
      if (keys.length !== 1 || (keys[0] !== 'advanceMs' && keys[0] !== 'set'))
        return refuse('invalid_request', 'Send exactly one of {"advanceMs": <ms>} or {"set": "<RFC 3339 instant>"}.', 400);
      if (body.advanceMs !== undefined) {
        const ms = body.advanceMs;
        if (typeof ms !== 'number' || !Number.isSafeInteger(ms) || ms < 0)
          return refuse('invalid_request', 'advanceMs must be a non-negative whole number of milliseconds.', 400);
        await clock.advance(ms);
      } else {
        const iso = body.set;
        if (typeof iso !== 'string' || !Number.isFinite(Date.parse(iso)))
          return refuse('invalid_request', 'set must be an RFC 3339 instant such as "2030-01-01T09:00:00Z".', 400);
        await clock.set(iso);
      }
      await service.whenIdle();
      const now = new Date(clock.now()).toISOString();
      emit({ type: 'clock', data: { now } });
      return Response.json({ now });
    },
  };
}

// The test clock (only when the Host was started with SCHEDULE_TEST_CLOCK): `POST /api/test/clock`
// with `{"advanceMs": n}` or `{"set": "<RFC 3339>"}` moves the manual clock, fires the timers that
// fall due, waits until the service is idle, and answers `{now}`. Without a test clock the route
// does not exist.
import type { Hono } from 'hono';
import type { ManualClock } from '../../src/testing.ts';
import type { HostStack } from '../stack.ts';
import type { EventHub } from './eventHub.ts';
import { HostHttpError } from './failures.ts';
import { readJsonObject } from './requestGuards.ts';

/** Registers the route for `clock`. */
export function testClockRoute(app: Hono, stack: HostStack, clock: ManualClock, hub: EventHub): void {
  app.post('/api/test/clock', async (c) => {
    const body = await readJsonObject(c);
    const keys = Object.keys(body);
    if (keys.length !== 1 || (keys[0] !== 'advanceMs' && keys[0] !== 'set'))
      throw new HostHttpError('invalid_request', 'Send exactly one of {"advanceMs": <ms>} or {"set": "<RFC 3339 instant>"}.');
    if (body.advanceMs !== undefined) {
      const ms = body.advanceMs;
      if (typeof ms !== 'number' || !Number.isSafeInteger(ms) || ms < 0)
        throw new HostHttpError('invalid_request', 'advanceMs must be a non-negative whole number of milliseconds.');
      await clock.advance(ms);
    } else {
      const iso = body.set;
      if (typeof iso !== 'string' || !Number.isFinite(Date.parse(iso)))
        throw new HostHttpError('invalid_request', 'set must be an RFC 3339 instant such as "2030-01-01T09:00:00Z".');
      await clock.set(iso);
    }
    await stack.service.whenIdle();
    const now = new Date(clock.now()).toISOString();
    hub.emit({ type: 'clock', data: { now } });
    return c.json({ now });
  });
}

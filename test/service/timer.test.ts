// The single timer (docs/delivery.md): one pending timer, waits capped at maxWaitMs (never above
// 2^31 − 1 ms), the clock reread after each wake, no early fire after the clock moved backwards.
import { createManualClock } from '../../src/testing.ts';
import { closeAll, create, DAY, HOUR, harness, MINUTE, tick } from '../support/harness.ts';

afterEach(closeAll);

const T0 = '2030-01-01T08:00:00.000Z';

/** A manual clock that records every requested delay. */
function recordingClock(start: string) {
  const clock = createManualClock(start);
  const requested: number[] = [];
  const setTimeout = clock.setTimeout.bind(clock);
  clock.setTimeout = (fn, ms) => {
    requested.push(ms);
    return setTimeout(fn, ms);
  };
  return { clock, requested };
}

describe('the single timer', () => {
  it('with 200 tasks there is at most one pending timer, armed for the earliest', async () => {
    const { clock, requested } = recordingClock(T0);
    const h = await harness({ clock });
    for (let i = 0; i < 200; i++) await create(h, `s${i % 7}`, { after_seconds: 3600 - i * 10 });
    expect(clock.pendingTimers).toBe(1);
    expect(requested.at(-1)).toBe(60_000);
    await tick(h, HOUR);
    expect(clock.pendingTimers).toBe(0);
    const delivered = Array.from({ length: 7 }, (_, s) => h.sessions.messages(`s${s}`).length).reduce((a, b) => a + b, 0);
    expect(delivered).toBe(200);
  });

  it('maxWaitMs caps every wait; a far target is reached in waits of at most 2^31 − 1 ms', async () => {
    const { clock, requested } = recordingClock(T0);
    const h = await harness({ clock, config: { maxWaitMs: 2 ** 31 - 1 } });
    await create(h, 's1', { after_seconds: 100 * 86400 });
    await tick(h, 100 * DAY);
    expect(h.sessions.messages('s1')).toHaveLength(1);
    expect(Math.max(...requested)).toBe(2 ** 31 - 1);
  });

  it('the default maxWaitMs is 60 s; an invalid one is refused with invalid_rule', async () => {
    const { clock, requested } = recordingClock(T0);
    const h = await harness({ clock });
    await create(h, 's1', { after_seconds: 3600 });
    expect(Math.max(...requested)).toBe(60_000);
    for (const maxWaitMs of [0, 2 ** 31, 1.5, -1]) {
      await expect(harness({ config: { maxWaitMs } })).rejects.toMatchObject({ code: 'invalid_rule' });
    }
  });

  it('a clock set backwards fires nothing early and the target still fires', async () => {
    const h = await harness({ start: T0 });
    await create(h, 's1', { after_seconds: 600 });
    await h.clock.set('2030-01-01T06:00:00.000Z');
    await tick(h, 2 * HOUR + 9 * MINUTE);
    expect(h.sessions.messages('s1')).toHaveLength(0);
    await tick(h, MINUTE);
    expect(h.sessions.messages('s1')).toHaveLength(1);
  });

  it('cron across the America/New_York fall-back: 01:30 fires once, at the earlier instant', async () => {
    const h = await harness({ start: '2030-11-03T04:00:00.000Z' });
    await create(h, 's1', { cron: { expression: '30 1 * * *', time_zone: 'America/New_York' } });
    await tick(h, 4 * HOUR);
    const keys = h.sessions.messages('s1').flatMap((m) => m.idempotencyKeys);
    expect(keys.map((k) => k.split('@')[1])).toEqual(['2030-11-03T05:30:00.000Z']);
  });

  it('daily across the Europe/London spring-forward gap: 01:30 is skipped that day, not shifted', async () => {
    const h = await harness({ start: '2030-03-30T12:00:00.000Z' });
    await create(h, 's1', { daily: { time: '01:30:00', time_zone: 'Europe/London' } });
    await tick(h, 2 * DAY);
    const keys = h.sessions.messages('s1').flatMap((m) => m.idempotencyKeys);
    expect(keys.map((k) => k.split('@')[1])).toEqual(['2030-04-01T00:30:00.000Z']);
  });
});

// The delivery log (docs/delivery.md): each committed delivery at debug, and at info one summary per
// interval of the injected clock — deliveries, failed attempts, lateness p50/p99 — written only
// when a delivery or a failure is processed after the interval has passed, and flushed on close.
import { memoryStorage } from '../../src/adapters/memoryStorage.ts';
import type { ScheduleConfig } from '../../src/domain/serviceOptions.ts';
import type { Logger } from '../../src/ports.ts';
import { createScheduleService, type ScheduleService } from '../../src/service.ts';
import { createFakeSessions, createManualClock, type FakeSessions, type ManualClock } from '../../src/testing.ts';

const T0 = '2030-01-01T08:00:00.000Z';
const T0_MS = Date.parse(T0);
const SUMMARY = 'Reminder deliveries since the last summary.';

type Level = 'debug' | 'info' | 'warn' | 'error';
interface Line {
  readonly level: Level;
  readonly msg: string;
  readonly data: unknown;
}

interface Rig {
  readonly svc: ScheduleService;
  readonly clock: ManualClock;
  readonly sessions: FakeSessions;
  readonly lines: Line[];
  at(level: Level): Line[];
  tick(ms: number): Promise<void>;
  create(sessionId: string, afterSeconds: number): Promise<void>;
}

const open = new Set<ScheduleService>();
afterEach(async () => {
  for (const svc of open) await svc.close().catch(() => undefined);
  open.clear();
});

async function rig(config: ScheduleConfig = {}): Promise<Rig> {
  const clock = createManualClock(T0);
  const sessions = createFakeSessions();
  const lines: Line[] = [];
  const record =
    (level: Level) =>
    (msg: string, data?: unknown): void => {
      lines.push({ level, msg, data });
    };
  const logger: Required<Logger> = { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
  const svc = await createScheduleService({ sessions, storage: memoryStorage(), clock, logger, config });
  open.add(svc);
  clock.attach(svc);
  return {
    svc,
    clock,
    sessions,
    lines,
    at: (level) => lines.filter((l) => l.level === level),
    async tick(ms) {
      await clock.advance(ms);
      await svc.whenIdle();
    },
    async create(sessionId, afterSeconds) {
      const view = await svc.callTool(sessionId, 'schedule_create', { title: 't', prompt: 'p', after_seconds: afterSeconds });
      if ('code' in view) throw new Error(`create failed: ${view.code}`);
    },
  };
}

describe('delivery log', () => {
  it('21 deliveries: 21 debug lines, no summary within 60 s, then one info summary with p50 29 s and p99 39 s', async () => {
    const r = await rig();
    for (let k = 1; k <= 20; k++) await r.create(`s${k % 3}`, k);
    // Jumping to 08:00:40 delivers all twenty at once: task k is (40 − k) s late.
    await r.clock.set('2030-01-01T08:00:40.000Z');
    await r.svc.whenIdle();
    const delivered = r.at('debug').filter((l) => l.msg === 'Reminder delivered.');
    expect(delivered).toHaveLength(20);
    expect(delivered[0]?.data).toMatchObject({ taskId: expect.any(String), deliveredAt: T0_MS + 40_000, messageId: expect.any(String) });
    expect(r.at('info')).toEqual([]);

    await r.create('s1', 30); // due 08:01:10, delivered on time
    await r.tick(29_999);
    expect(r.at('info')).toEqual([]);
    await r.tick(1);
    expect(r.at('debug').filter((l) => l.msg === 'Reminder delivered.')).toHaveLength(21);
    expect(r.at('info')).toEqual([
      {
        level: 'info',
        msg: SUMMARY,
        data: { delivered: 21, failedAttempts: 0, latenessP50Ms: 29_000, latenessP99Ms: 39_000, periodMs: 70_000 },
      },
    ]);
    expect(r.at('warn')).toEqual([]);

    // Nothing left to do: no timer waits, however long the clock runs, and nothing more is logged.
    expect(r.clock.pendingTimers).toBe(0);
    await r.tick(600_000);
    await r.svc.close();
    expect(r.at('info')).toHaveLength(1);
  });

  it('counts a failed attempt (still logged at warn) in the summary its retry brings', async () => {
    const r = await rig({ retry: { initialMs: 60_000, maxMs: 60_000 } });
    await r.create('s1', 10);
    r.sessions.failNext('s1', 'flush');
    await r.tick(10_000); // the attempt at 08:00:10 fails
    expect(r.at('warn').map((l) => l.msg)).toEqual(['A delivery attempt failed; the reminders stay active.']);
    expect(r.at('info')).toEqual([]);
    await r.tick(60_000); // the retry at 08:01:10 delivers it, 60 s late
    expect(r.at('info').map((l) => l.data)).toEqual([
      { delivered: 1, failedAttempts: 1, latenessP50Ms: 60_000, latenessP99Ms: 60_000, periodMs: 70_000 },
    ]);
  });

  it('a summary of failures alone has no lateness', async () => {
    const r = await rig({ retry: { initialMs: 60_000, maxMs: 60_000 }, deliverySummaryIntervalMs: 30_000 });
    await r.create('s1', 10);
    r.sessions.failNext('s1', 'resolve');
    r.sessions.failNext('s1', 'resolve');
    await r.tick(70_000); // fails at 08:00:10 and again at 08:01:10
    expect(r.at('info').map((l) => l.data)).toEqual([
      { delivered: 0, failedAttempts: 2, latenessP50Ms: null, latenessP99Ms: null, periodMs: 70_000 },
    ]);
  });

  it('close flushes what the last summary has not told; a close with nothing pending logs none', async () => {
    const r = await rig();
    await r.create('s1', 5);
    await r.tick(5_000);
    expect(r.at('info')).toEqual([]);
    await r.tick(20_000);
    await r.svc.close();
    expect(r.at('info').map((l) => l.data)).toEqual([
      { delivered: 1, failedAttempts: 0, latenessP50Ms: 0, latenessP99Ms: 0, periodMs: 25_000 },
    ]);

    const quiet = await rig();
    await quiet.tick(120_000);
    await quiet.svc.close();
    expect(quiet.at('info')).toEqual([]);
  });
});

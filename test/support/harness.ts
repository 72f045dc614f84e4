// A service wired for tests: manual clock, fake Sessions, memory storage (or a given one), and a
// logger that keeps what it was told. `tick` moves the clock and waits for the work it caused.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryStorage } from '../../src/adapters/memoryStorage.ts';
import type { ScheduleConfig } from '../../src/domain/serviceOptions.ts';
import type { ScheduleMetrics, ScheduleStorage, SessionController } from '../../src/ports.ts';
import { createScheduleService, type ScheduleChange, type ScheduleService, type ScheduleServiceOptions } from '../../src/service.ts';
import { createFakeSessions, createManualClock, type FakeSessions, type ManualClock } from '../../src/testing.ts';

export interface Harness {
  readonly svc: ScheduleService;
  readonly clock: ManualClock;
  readonly sessions: FakeSessions;
  readonly storage: ScheduleStorage;
  readonly logs: Array<{ level: 'warn' | 'error'; msg: string; data: unknown }>;
  readonly changes: ScheduleChange[];
}

export interface HarnessOptions {
  readonly start?: string;
  readonly clock?: ManualClock;
  readonly sessions?: FakeSessions;
  readonly controller?: SessionController;
  readonly storage?: ScheduleStorage;
  readonly config?: ScheduleConfig;
  readonly metrics?: ScheduleMetrics;
  /** Receives XState's inspection events: what the actors are sent, to wait on. */
  readonly inspect?: ScheduleServiceOptions['inspect'];
  /** Let `clock.advance` wait for the service to go idle (default). Off for tests that hold a delivery open. */
  readonly attachClock?: boolean;
}

const open = new Set<ScheduleService>();
const dirs: string[] = [];

export async function harness(options: HarnessOptions = {}): Promise<Harness> {
  const clock = options.clock ?? createManualClock(options.start ?? '2030-01-01T08:00:00.000Z');
  const sessions = options.sessions ?? createFakeSessions();
  const storage = options.storage ?? memoryStorage();
  const logs: Harness['logs'] = [];
  const svc = await createScheduleService({
    sessions: options.controller ?? sessions,
    storage,
    clock,
    ...(options.config === undefined ? {} : { config: options.config }),
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
    ...(options.inspect === undefined ? {} : { inspect: options.inspect }),
    logger: {
      warn: (msg, data) => logs.push({ level: 'warn', msg, data }),
      error: (msg, data) => logs.push({ level: 'error', msg, data }),
    },
  });
  open.add(svc);
  if (options.attachClock !== false) clock.attach(svc);
  const changes: ScheduleChange[] = [];
  svc.subscribe((change) => changes.push(change));
  return { svc, clock, sessions, storage, logs, changes };
}

/** Closes every service opened by `harness` and removes temp folders; use in afterEach. */
export async function closeAll(): Promise<void> {
  for (const svc of open) await svc.close().catch(() => undefined);
  open.clear();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export async function closeHarness(h: Harness): Promise<void> {
  open.delete(h.svc);
  await h.svc.close();
}

export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-schedule-test-'));
  dirs.push(dir);
  return dir;
}

/** Moves the clock and lets everything it caused finish. */
export async function tick(h: Harness, ms: number): Promise<void> {
  await h.clock.advance(ms);
  await h.svc.whenIdle();
}

/** schedule_create that must succeed. */
export async function create(
  h: Harness,
  sessionId: string,
  args: Record<string, unknown>,
): Promise<{ id: string; scheduledAt: string } & Record<string, unknown>> {
  const view = await h.svc.callTool(sessionId, 'schedule_create', { prompt: 'p', title: 't', ...args });
  if ('code' in view) throw new Error(`create failed: ${view.code}: ${view.message}`);
  return { ...view };
}

export const MINUTE = 60_000;
export const HOUR = 3_600_000;
export const DAY = 86_400_000;

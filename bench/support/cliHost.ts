// The reference Host with a large schedule, for the CLI benchmark: a schedule.json of N tasks
// written straight into a temp data folder (no create calls), and `npm start`'s program run on it
// as a child process in test-clock mode, so that no task falls due while the commands run. The
// domain is a plausible one: five kinds over 1,000 Sessions, the wall-clock targets real
// occurrences of their rules except one in two hundred (drifted by an hour), one in a hundred
// tasks paused, one in 250 failing (its latest attempt failed, retried at its target), one in
// fifty ended.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { encodeDocument } from '../../src/domain/codec/index.ts';
import { ruleFromRecord } from '../../src/domain/tasks/records.ts';
import type { DeliveryFailure, ScheduleRecord, TaskRow, WallClockRule } from '../../src/domain/tasks/types.ts';
import { wallClockFirings } from '../../src/domain/time/recurrence.ts';

/** The Host's test clock: every target lies after it. */
export const CLI_BENCH_CLOCK = '2030-06-01T00:00:00.000Z';
const NOW = Date.parse(CLI_BENCH_CLOCK);
const SESSIONS = 1_000;
const ZONES = ['UTC', 'Europe/Paris', 'America/New_York', 'Asia/Tokyo'];

function recordOf(i: number): ScheduleRecord {
  const base = { id: `sch_${i}`, title: `Task ${i}: review the deploy queue`, prompt: `Check project ${i} and report.`, scheduledAt: '' };
  const timeZone = ZONES[i % ZONES.length] ?? 'UTC';
  const hour = String(i % 24).padStart(2, '0');
  switch (i % 5) {
    case 0:
      return { ...base, kind: 'every', everySeconds: 600 };
    case 1:
      return { ...base, kind: 'daily', time: `${hour}:15:00`, timeZone };
    case 2:
      return { ...base, kind: 'weekly', time: `${hour}:45:00`, timeZone, weekdays: [1 + (i % 7)] };
    case 3:
      return { ...base, kind: 'cron', expression: `${i % 60} ${i % 24} * * 1-5`, timeZone };
    default:
      return { ...base, kind: 'after', afterSeconds: 3600 };
  }
}

/** A failed attempt a minute before the clock, retried at the task's target. */
const failureBefore = (target: number): DeliveryFailure => ({
  attempts: 2,
  lastAt: new Date(NOW - 60_000).toISOString(),
  stage: 'flush',
  message: 'bench: the Session did not take the reminder',
  nextRetryAt: new Date(target).toISOString(),
});

/** The `n` rows of the benchmark's schedule. */
export function cliBenchRows(n: number): TaskRow[] {
  const rows: TaskRow[] = [];
  for (let i = 1; i <= n; i++) {
    const record = recordOf(i);
    const from = NOW + 60_000 + (i % 1000) * 60_000;
    const rule = ruleFromRecord(record);
    let target = from;
    if (rule.kind === 'daily' || rule.kind === 'weekly' || rule.kind === 'cron') {
      target = wallClockFirings(rule as WallClockRule).next(from) ?? from;
      if (i % 200 === 3 && target - 3_600_000 > NOW) target -= 3_600_000;
    }
    const ended = i % 50 === 0;
    rows.push({
      sessionId: `session-${i % SESSIONS}`,
      status: ended ? 'inactive' : 'active',
      record: { ...record, scheduledAt: new Date(target).toISOString() } as ScheduleRecord,
      ...(!ended && i % 100 === 7 ? { pausedAt: CLI_BENCH_CLOCK } : {}),
      ...(!ended && i % 250 === 11 ? { failure: failureBefore(target) } : {}),
      deliveryHistory: { records: [], earlierRecordsUnavailable: false, earlierRecordsPruned: false },
    });
  }
  return rows;
}

/** A running reference Host on a seeded data folder. */
export interface BenchHost {
  readonly url: string;
  stop(): Promise<void>;
}

/** Writes `rows` as the schedule of a fresh data folder and starts `npm start`'s program on it; resolves once it listens. */
export async function startBenchHost(rows: TaskRow[]): Promise<BenchHost> {
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-schedule-cli-bench-'));
  writeFileSync(join(dataDir, 'schedule.json'), encodeDocument({ tasks: rows, nextTaskNumber: rows.length + 1 }));
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'host/main.ts'], {
    env: { ...process.env, PORT: '0', DATA_DIR: dataDir, SCHEDULE_TEST_CLOCK: CLI_BENCH_CLOCK, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the Host exited with ${code} before it listened`)));
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    lines.on('line', (line) => {
      const logged = /^\{/.test(line) ? (JSON.parse(line) as { url?: unknown }) : {};
      if (typeof logged.url === 'string') resolve(logged.url);
    });
  });
  return {
    url,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

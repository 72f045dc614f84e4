// The schedule of the web page's benchmark and its browser test at scale: N tasks of every kind
// written straight into a Host's data folder (no create calls), a steady stream of deliveries
// once the test clock moves, and every state the page shows. One task in six is an `every` task
// whose targets are staggered 50 ms apart and whose interval is chosen so that, with the clock
// moving at real speed, 20 of them fall due each second. The others lie hours ahead: daily,
// weekly and cron tasks at real occurrences of their rules, one-shots after and at. One in ten of
// those is paused (a third of them with a note), one in twenty has ended, and one in 250 belongs
// to one of three broken Sessions (a damaged transcript: every delivery attempt fails at
// `resolve`) and is stored failing, overdue, with its next retry half a minute ahead — a few of
// them paused too. Titles carry one of eight topics, so a search narrows to an eighth.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeDocument } from '../../src/domain/codec/index.ts';
import { ruleFromRecord } from '../../src/domain/tasks/records.ts';
import type { ScheduleRecord, TaskRow, WallClockRule } from '../../src/domain/tasks/types.ts';
import { wallClockFirings } from '../../src/domain/time/recurrence.ts';

/** The topics of the titles: a search for one matches about an eighth of the tasks. */
export const TOPICS = [
  'review the deploy queue',
  'water the plants',
  'rotate the keys',
  'summarise the inbox',
  'check the backups',
  'renew the certificates',
  'stretch and drink water',
  'triage the bug reports',
];
/** How many deliveries fall due per second of clock time. */
export const DELIVERIES_PER_SECOND = 20;
/** The broken Sessions: their transcripts are damaged, so their tasks keep failing. */
export const BROKEN_SESSIONS = ['broken-0', 'broken-1', 'broken-2'];
const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Tokyo'];
const STAGGER_MS = 1000 / DELIVERIES_PER_SECOND;

/** How many Sessions the tasks of an N-task schedule spread over (besides the broken ones). */
export const sessionCount = (n: number): number => Math.min(1_000, Math.max(10, Math.round(n / 20)));

function wallClockTarget(record: ScheduleRecord, fromMs: number): number {
  const rule = ruleFromRecord(record);
  return wallClockFirings(rule as WallClockRule).next(fromMs) ?? fromMs;
}

/** The `n` rows, on a clock starting at `start`. */
export function consoleRows(n: number, start: string): TaskRow[] {
  const now = Date.parse(start);
  const sessions = sessionCount(n);
  const everyCount = Math.ceil(n / 6);
  const everySeconds = Math.max(60, Math.round(everyCount / DELIVERIES_PER_SECOND));
  const rows: TaskRow[] = [];
  let everyIndex = 0;
  for (let i = 1; i <= n; i++) {
    const failing = i % 250 === 1;
    const zone = ZONES[i % ZONES.length] ?? 'UTC';
    const hour = String(i % 24).padStart(2, '0');
    const base = {
      id: `sch_${i}`,
      title: `Task ${i}: ${TOPICS[i % TOPICS.length]}`,
      prompt: `Step ${i}: ${TOPICS[(i + 3) % TOPICS.length]} and report anything odd.`,
      scheduledAt: '',
    };
    const later = now + 2 * 3_600_000 + (i % 5_000) * 60_000;
    let record: ScheduleRecord;
    let target: number;
    switch (failing ? 5 : i % 6) {
      case 0:
        record = { ...base, kind: 'every', everySeconds };
        target = now + 1_000 + everyIndex * STAGGER_MS;
        everyIndex += 1;
        break;
      case 1:
        record = { ...base, kind: 'daily', time: `${hour}:15:00`, timeZone: zone };
        target = wallClockTarget(record, later);
        break;
      case 2:
        record = { ...base, kind: 'weekly', time: `${hour}:45:00`, timeZone: zone, weekdays: [1 + (i % 7)] };
        target = wallClockTarget(record, later);
        break;
      case 3:
        record = { ...base, kind: 'cron', expression: `${i % 60} ${i % 24} * * 1-5`, timeZone: zone };
        target = wallClockTarget(record, later);
        break;
      case 4:
        record = { ...base, kind: 'after', afterSeconds: 7_200 };
        target = later;
        break;
      default:
        record = { ...base, kind: 'at' };
        target = failing ? now - 60_000 : later;
    }
    const ended = !failing && i % 20 === 7;
    const paused = !ended && (i % 10 === 3 || (failing && i % 1_000 === 1));
    const receipt = {
      scheduledAt: new Date(now - 86_400_000).toISOString(),
      deliveredAt: new Date(now - 86_400_000 + 1_000 + (i % 1_000)).toISOString(),
      messageId: `msg-seed-${i}`,
    };
    rows.push({
      sessionId: failing ? (BROKEN_SESSIONS[i % BROKEN_SESSIONS.length] ?? 'broken-0') : `session-${i % sessions}`,
      status: ended ? 'inactive' : 'active',
      record: { ...record, scheduledAt: new Date(target).toISOString() } as ScheduleRecord,
      ...(paused ? { pausedAt: new Date(now - 3_600_000).toISOString() } : {}),
      ...(paused && i % 30 === 13 ? { pauseNote: 'Paused for the maintenance window' } : {}),
      ...(failing
        ? {
            failure: {
              attempts: 3,
              lastAt: new Date(now - 10_000).toISOString(),
              stage: 'resolve' as const,
              message: `The transcript /srv/agent-schedule/data/sessions/${BROKEN_SESSIONS[i % BROKEN_SESSIONS.length]}.jsonl:1 is not a JSON line.`,
              nextRetryAt: new Date(now + 30_000).toISOString(),
            },
          }
        : {}),
      ...(ended || i % 3 === 0 ? { lastDelivery: receipt } : {}),
      deliveryHistory: { records: ended || i % 3 === 0 ? [receipt] : [], earlierRecordsUnavailable: false, earlierRecordsPruned: false },
    });
  }
  return rows;
}

/** A fresh Host data folder holding the schedule of `n` tasks and the broken Sessions' damaged transcripts. */
export function writeConsoleDataDir(n: number, start: string): { dataDir: string; cleanup: () => void } {
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-schedule-console-'));
  const rows = consoleRows(n, start);
  writeFileSync(join(dataDir, 'schedule.json'), encodeDocument({ tasks: rows, nextTaskNumber: n + 1 }));
  mkdirSync(join(dataDir, 'sessions'), { recursive: true });
  for (const id of BROKEN_SESSIONS) writeFileSync(join(dataDir, 'sessions', `${id}.jsonl`), 'this is not a transcript line\n');
  return { dataDir, cleanup: () => rmSync(dataDir, { recursive: true, force: true }) };
}

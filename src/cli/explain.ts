// `agent-schedule explain`: what a running Host knows about one task, for "why did it (not)
// fire?": its status (paused since when, and why) and timing, the failure status of its latest
// delivery attempt, its last delivery receipts with their lateness (delivered − occurrence), the
// occurrences each coalesced and whether it was run now, and its next occurrences with the DST
// notes of the scheduler's own preview (a skipped local time, a repeated one). Without --session
// the task is looked up in every Session.

import type { CatalogPage } from '../domain/reads/catalogPage.ts';
import type { HistoryPage } from '../domain/reads/historyPage.ts';
import { type PreviewOccurrence, previewOccurrences } from '../domain/reads/preview.ts';
import type { CatalogEntry, DeliveryFailure, DeliveryReceipt, Rule, ScheduleRecord } from '../domain/tasks/types.ts';
import { UsageError } from './command.ts';
import { pathOf } from './hostClient.ts';
import { HOST_OPTIONS_HELP, hostCommand, notFound, required } from './hostCommand.ts';
import { wholeNumber } from './parseOptions.ts';
import { formatTable } from './table.ts';
import { describeTiming, localReading } from './taskTable.ts';

const DEFAULT_RECEIPTS = 5;
const DEFAULT_NEXT = 5;

/** A receipt with its lateness in milliseconds. */
export interface ExplainedReceipt extends DeliveryReceipt {
  readonly latenessMs: number;
}

/** What `explain --json` prints. */
export interface Explanation {
  readonly sessionId: string;
  readonly status: CatalogEntry['status'];
  readonly record: ScheduleRecord;
  /** When the task was paused; present while it is. */
  readonly pausedAt?: string;
  /** Why the task was paused; present while it is paused with a note. */
  readonly pauseNote?: string;
  /** The failure status of its latest delivery attempt; present while it failed. */
  readonly failure?: DeliveryFailure;
  /** The newest receipts first. */
  readonly receipts: readonly ExplainedReceipt[];
  /** The next occurrences from the task's committed next target on (none once it ended). */
  readonly next: readonly PreviewOccurrence[];
}

/** `1 h 2 min 3 s`, `250 ms`, `-4 s` (delivered before the occurrence: a clock moved back). */
export function formatDuration(ms: number): string {
  if (ms < 0) return `-${formatDuration(-ms)}`;
  if (ms < 1000) return `${ms} ms`;
  const seconds = Math.floor(ms / 1000);
  const parts: string[] = [];
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (days > 0) parts.push(`${days} d`);
  if (hours > 0) parts.push(`${hours} h`);
  if (minutes > 0) parts.push(`${minutes} min`);
  if (seconds % 60 > 0 || parts.length === 0) parts.push(`${seconds % 60} s`);
  return parts.join(' ');
}

/**
 * The next `count` occurrences of an active task, starting with its committed target. `sinceMs`
 * (its newest delivered occurrence) widens the DST notes of that first occurrence to everything
 * skipped since then.
 */
export function nextOccurrences(record: ScheduleRecord, count: number, sinceMs?: number): PreviewOccurrence[] {
  const target = Date.parse(record.scheduledAt);
  const rule: Rule =
    record.kind === 'every'
      ? { kind: 'every', everySeconds: record.everySeconds }
      : record.kind === 'daily'
        ? { kind: 'daily', time: record.time, timeZone: record.timeZone }
        : record.kind === 'weekly'
          ? { kind: 'weekly', time: record.time, timeZone: record.timeZone, weekdays: record.weekdays }
          : record.kind === 'cron'
            ? { kind: 'cron', expression: record.expression, timeZone: record.timeZone }
            : { kind: 'at', at: target };
  // Occurrences come strictly after `from`: one step (or one millisecond) before the target.
  const from = rule.kind === 'every' ? target - rule.everySeconds * 1000 : target - 1;
  const next = previewOccurrences(rule, from, count);
  const first = next[0];
  if (first === undefined || sinceMs === undefined || sinceMs >= from || rule.kind === 'every' || rule.kind === 'at') return next;
  const widened = previewOccurrences(rule, sinceMs, 1)[0];
  return widened?.at === first.at ? [widened, ...next.slice(1)] : next;
}

/**
 * The task's catalog entry: from its Session when one is given, else the catalog page that the
 * filter `id` narrows to this one task (never the whole catalog, whose size grows with the
 * schedule).
 */
async function findEntry(host: { get(path: string): Promise<unknown> }, id: string, sessionId: string | undefined): Promise<CatalogEntry> {
  if (sessionId !== undefined) return (await host.get(pathOf('api', 'sessions', sessionId, 'tasks', id))) as CatalogEntry;
  const page = (await host.get(`/api/catalog?${new URLSearchParams({ id, limit: '1' })}`)) as CatalogPage<CatalogEntry>;
  const entry = page.entries[0];
  if (entry === undefined) throw notFound(id);
  return entry;
}

/** What the status line says after the task's name. */
function statusText(x: Explanation): string {
  if (x.status !== 'active') return 'ended (it fires no more)';
  if (x.pausedAt !== undefined) return `paused since ${x.pausedAt} (not delivered until resumed or run now)`;
  return 'active';
}

/** The failure status in one line: attempts, the latest one's stage and cause, the next retry. */
export function failureLine(f: DeliveryFailure): string {
  const attempts = f.attempts === 1 ? '1 attempt' : `${f.attempts} attempts`;
  const retry = f.nextRetryAt === undefined ? 'no retry is scheduled' : `next retry at ${f.nextRetryAt}`;
  return `Delivery failing: ${attempts} failed, the latest at ${f.lastAt} (stage ${f.stage}: ${f.message}); ${retry}`;
}

/** What a receipt says besides its times: a run-now delivery, the occurrences it coalesced. */
export function receiptNotes(r: DeliveryReceipt): string {
  const notes: string[] = [];
  if (r.trigger === 'manual') notes.push('run now');
  if (r.missed !== undefined) {
    const count = r.missed === 1 ? '1 missed occurrence' : `${r.missed} missed occurrences`;
    notes.push(`${count} coalesced since ${r.firstMissed ?? '(unknown)'}`);
  }
  return notes.join('; ');
}

function explanationLines(x: Explanation): string[] {
  const { record } = x;
  const zone = 'timeZone' in record ? record.timeZone : 'UTC';
  const lines = [
    `${record.id} ${JSON.stringify(record.title)} in Session ${x.sessionId}: ${statusText(x)}`,
    `Timing: ${describeTiming(record)}`,
  ];
  if (x.pauseNote !== undefined) lines.push(`Pause note: ${x.pauseNote}`);
  if (x.status === 'active') lines.push(`Next target: ${record.scheduledAt} (${localReading(record.scheduledAt, zone)} ${zone})`);
  if (x.failure !== undefined) lines.push(failureLine(x.failure));
  lines.push('');
  if (x.receipts.length === 0) lines.push('Last deliveries: none');
  else {
    lines.push('Last deliveries, newest first:');
    const rows = x.receipts.map((r) => [r.scheduledAt, r.deliveredAt, formatDuration(r.latenessMs), r.messageId, receiptNotes(r)]);
    // The NOTES column shows only when a receipt has something to say.
    const withNotes = rows.some((row) => row[4] !== '');
    const header = ['OCCURRENCE', 'DELIVERED', 'LATE BY', 'MESSAGE', ...(withNotes ? ['NOTES'] : [])];
    const cells = withNotes ? rows : rows.map((row) => row.slice(0, 4));
    lines.push(...formatTable(header, cells).map((l) => `  ${l}`));
  }
  if (x.status === 'active') {
    lines.push('', x.pausedAt === undefined ? 'Next occurrences:' : 'Next occurrences (none is delivered while the task is paused):');
    const rows = x.next.map((o) => [o.at, o.local, o.offset, o.notes.join('; ')]);
    lines.push(...formatTable(['AT (UTC)', 'LOCAL', 'OFFSET', 'NOTES'], rows).map((l) => `  ${l}`));
  }
  return lines;
}

/** `agent-schedule explain`. */
export const explainCommand = hostCommand({
  name: 'explain',
  summary: 'explain a task: status, failures, last deliveries with lateness, next occurrences',
  help: `Usage: agent-schedule explain --id <task> [--session <id>] [--receipts <n>] [--next <n>] [--url <url>] [--json]

Explains one task: its status (active, paused since when and why, or ended) and timing, the failure
status of its latest delivery attempt (failed attempts, stage, cause, next retry), its last
deliveries with their lateness (delivered minus occurrence), the occurrences each one coalesced
("3 missed occurrences coalesced since ...") and whether it was run now, and its next
occurrences with the DST rules applied (a local time that does not exist on a date is skipped,
one that exists twice fires at the earlier instant).

  --id <task>               the task id
  --session <id>            its Session (default: look the task up in every Session)
  --receipts <n>            how many of the last deliveries, 1-100 (default ${DEFAULT_RECEIPTS})
  --next <n>                how many next occurrences, 1-100 (default ${DEFAULT_NEXT})
${HOST_OPTIONS_HELP}`,
  options: { id: { type: 'string' }, session: { type: 'string' }, receipts: { type: 'string' }, next: { type: 'string' } },
  async ask(values, host) {
    const id = required(values.id, 'id');
    const receiptCount = wholeNumber(values.receipts, 'receipts', 'a whole number from 1 to 100') ?? DEFAULT_RECEIPTS;
    const nextCount = wholeNumber(values.next, 'next', 'a whole number from 1 to 100') ?? DEFAULT_NEXT;
    for (const [name, n] of [
      ['receipts', receiptCount],
      ['next', nextCount],
    ] as const)
      if (n < 1 || n > 100) throw new UsageError(`--${name} takes a whole number from 1 to 100; got ${n}.`);
    const entry = await findEntry(host, id, values.session === '' ? undefined : values.session);
    const page = (await host.get(
      `${pathOf('api', 'sessions', entry.sessionId, 'tasks', id)}/history?limit=${receiptCount}`,
    )) as HistoryPage;
    const newest = page.records[0]?.scheduledAt;
    const explanation: Explanation = {
      sessionId: entry.sessionId,
      status: entry.status,
      record: entry.record,
      ...(entry.pausedAt === undefined ? {} : { pausedAt: entry.pausedAt }),
      ...(entry.pauseNote === undefined ? {} : { pauseNote: entry.pauseNote }),
      ...(entry.failure === undefined ? {} : { failure: entry.failure }),
      receipts: page.records.map((r) => ({ ...r, latenessMs: Date.parse(r.deliveredAt) - Date.parse(r.scheduledAt) })),
      next:
        entry.status === 'active' ? nextOccurrences(entry.record, nextCount, newest === undefined ? undefined : Date.parse(newest)) : [],
    };
    return { json: explanation, lines: explanationLines(explanation) };
  },
});

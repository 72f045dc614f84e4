// The delivery side of the crash trials, read from the Session transcripts: which idempotency
// keys (`<taskId>@<occurrence>`) each Session holds and in which messages; whether every reminder
// due before the kill reached its Session after the restart and was recorded; whether every
// receipt points at a message carrying its reminder; and how appends repeated across the kill —
// a raw redelivery is a key the Session already held durably being appended again (allowed only
// when its row write never landed: the kill fell between the flush and the row write), and a
// duplicate in a transcript is a key held by two messages (must never happen with the dedupe).

import { join } from 'node:path';
import { readTranscript, type TranscriptLine } from '../../host/sessions/transcript.ts';
import { listTranscripts } from '../../host/sessions/transcriptDir.ts';
import type { CatalogEntry, TaskRow } from '../../src/domain/tasks/types.ts';
import type { SeenFollowup } from './hostCrashRun.ts';

/** What the transcripts of one data folder hold. */
export interface Transcripts {
  /** Session → key → ids of the messages carrying it, in file order. */
  readonly keys: Map<string, Map<string, string[]>>;
  /** Session → message id → line. */
  readonly lines: Map<string, Map<string, TranscriptLine>>;
}

/** The reminders a message's text shows, as keys (docs/delivery.md framings); empty for any other text. */
function remindersShown(text: string): string[] {
  const lines = text.split('\n');
  const after = (prefix: string) => lines.find((line) => line.startsWith(prefix))?.slice(prefix.length) ?? '';
  if (lines[0] === '[SCHEDULE REMINDER]') return [`${JSON.parse(after('schedule_id_json: ')) as string}@${after('occurrence_at: ')}`];
  if (lines[0] !== '[SCHEDULE REMINDER BATCH]') return [];
  const entries = JSON.parse(after('reminders_json: ')) as Array<{ schedule_id: string; occurrence_at: string }>;
  return entries.map((entry) => `${entry.schedule_id}@${entry.occurrence_at}`);
}

/**
 * Reads every Session transcript under `<dataDir>/sessions`; the keys are the reminders each
 * message's text shows, and must be the idempotency keys it was appended with.
 */
export async function readTranscripts(dataDir: string): Promise<Transcripts> {
  const dir = join(dataDir, 'sessions');
  const out: Transcripts = { keys: new Map(), lines: new Map() };
  for (const sessionId of await listTranscripts(dir)) {
    const read = await readTranscript(join(dir, `${sessionId}.jsonl`));
    if (read === null) continue;
    const keys = new Map<string, string[]>();
    const lines = new Map<string, TranscriptLine>();
    for (const line of read.lines) {
      if (lines.has(line.messageId)) throw new Error(`${sessionId}: message id ${line.messageId} appears twice`);
      lines.set(line.messageId, line);
      const shown = remindersShown(line.text);
      if (shown.join(' ') !== (line.idempotencyKeys ?? []).join(' '))
        throw new Error(`${sessionId}: ${line.messageId} shows ${shown.join(', ')} but carries ${line.idempotencyKeys?.join(', ')}`);
      for (const key of shown) keys.set(key, [...(keys.get(key) ?? []), line.messageId]);
    }
    out.keys.set(sessionId, keys);
    out.lines.set(sessionId, lines);
  }
  return out;
}

/** Whether a Session's transcript holds a key. */
export const holds = (t: Transcripts, sessionId: string, key: string): boolean => (t.keys.get(sessionId)?.get(key)?.length ?? 0) > 0;

/** Keys carried by more than one message, counted once per extra message. */
export function duplicateKeys(t: Transcripts): number {
  let n = 0;
  for (const keys of t.keys.values()) for (const ids of keys.values()) n += ids.length - 1;
  return n;
}

/** The task id and the occurrence of a key. */
export function splitKey(key: string): { id: string; occurrence: string } {
  const at = key.lastIndexOf('@');
  return { id: key.slice(0, at), occurrence: key.slice(at + 1) };
}

/** Whether a row recorded a delivery of `occurrence` (its last delivery or its history). */
export const recorded = (row: TaskRow | undefined, occurrence: string): boolean =>
  row !== undefined &&
  (row.lastDelivery?.scheduledAt === occurrence || (row.deliveryHistory?.records ?? []).some((r) => r.scheduledAt === occurrence));

const ms = (iso: string): number => Date.parse(iso);

/**
 * Checks that every task due by `restartAt` in the rows on disk at the kill was delivered after
 * the restart and recorded; answers how many were due before the kill, and the problems.
 */
export function checkDueDelivered(
  before: readonly TaskRow[],
  after: readonly CatalogEntry[],
  t: Transcripts,
  killAt: number,
  restartAt: number,
): { dueBeforeKill: number; problems: string[] } {
  const problems: string[] = [];
  const byId = new Map(after.map((entry) => [entry.record.id, entry] as const));
  let dueBeforeKill = 0;
  for (const row of before) {
    const { id, kind, scheduledAt } = row.record;
    if (row.status !== 'active' || ms(scheduledAt) > restartAt) continue;
    if (ms(scheduledAt) <= killAt) dueBeforeKill++;
    const entry = byId.get(id);
    const last = entry?.lastDelivery;
    if (entry === undefined || last === undefined) {
      problems.push(`${id} was due at ${scheduledAt} but nothing is recorded after the restart`);
      continue;
    }
    const oneShot = kind === 'after' || kind === 'at';
    const occurrenceOk = oneShot
      ? last.scheduledAt === scheduledAt && entry.status === 'inactive'
      : ms(last.scheduledAt) >= ms(scheduledAt) && ms(last.scheduledAt) <= restartAt;
    if (!occurrenceOk) problems.push(`${id} was due at ${scheduledAt}; after the restart: ${JSON.stringify(entry)}`);
    if (!holds(t, entry.sessionId, `${id}@${last.scheduledAt}`))
      problems.push(`${id}@${last.scheduledAt} is recorded but not in the transcript of ${entry.sessionId}`);
  }
  for (const entry of after) {
    if (entry.status === 'active' && ms(entry.record.scheduledAt) <= restartAt)
      problems.push(`${entry.record.id} is still due (${entry.record.scheduledAt}) after the restart settled`);
  }
  return { dueBeforeKill, problems };
}

/**
 * Checks that each receipt names a message of its Session that carries its reminder — or that was
 * appended after an earlier message carrying it (the Session dropped the repeat from a batch).
 */
export function checkReceipts(rows: readonly CatalogEntry[], t: Transcripts): string[] {
  const problems: string[] = [];
  for (const { sessionId, record, lastDelivery } of rows) {
    if (lastDelivery === undefined) continue;
    const key = `${record.id}@${lastDelivery.scheduledAt}`;
    const order = [...(t.lines.get(sessionId)?.keys() ?? [])];
    const named = order.indexOf(lastDelivery.messageId);
    const carrier = t.keys.get(sessionId)?.get(key)?.[0];
    if (named < 0 || carrier === undefined || order.indexOf(carrier) > named)
      problems.push(`${record.id}: its receipt names ${lastDelivery.messageId}, but ${key} is not in that message or an earlier one`);
  }
  return problems;
}

/** How the restart's appends relate to what the Sessions held and the rows recorded at the kill. */
export interface Redeliveries {
  /** Keys the Session held durably, appended again. */
  raw: number;
  /** Keys appended before the kill but never made durable, appended again. */
  repeatedUnflushed: number;
  readonly problems: string[];
}

/** Classifies the restart's appends against the state at the kill and the child's appends. */
export function classifyRedeliveries(
  restart: readonly SeenFollowup[],
  before: Transcripts,
  rowsBefore: readonly TaskRow[],
  childKeys: ReadonlySet<string>,
): Redeliveries {
  const byId = new Map(rowsBefore.map((row) => [row.record.id, row] as const));
  const out: Redeliveries = { raw: 0, repeatedUnflushed: 0, problems: [] };
  for (const { sessionId, keys } of restart) {
    for (const key of keys) {
      const { id, occurrence } = splitKey(key);
      if (holds(before, sessionId, key)) {
        out.raw++;
        if (recorded(byId.get(id), occurrence)) out.problems.push(`${key} was recorded before the kill and still delivered again`);
      } else if (childKeys.has(key)) out.repeatedUnflushed++;
    }
  }
  return out;
}

/** Keys the child made durable whose row write never landed: the kill fell between flush and row write. */
export function flushedUnrecorded(t: Transcripts, rowsBefore: readonly TaskRow[], child: readonly SeenFollowup[]): number {
  const byId = new Map(rowsBefore.map((row) => [row.record.id, row] as const));
  let n = 0;
  for (const { sessionId, keys } of child) {
    for (const key of keys) {
      const { id, occurrence } = splitKey(key);
      const row = byId.get(id);
      if (row !== undefined && holds(t, sessionId, key) && !recorded(row, occurrence)) n++;
    }
  }
  return n;
}

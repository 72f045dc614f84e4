// Bulk actions (`remote.bulk`, docs/api.md): pause, resume or run now every task a request selects
// — listed tasks, or the tasks a catalog filter matches when the call starts — applied in bounded
// batches, one mailbox slot each, so deliveries and other calls run between them. Pure: the
// request's form and its checks, the progress a call carries from one batch to the next, and the
// answer it builds: how many tasks matched, how many were changed, and the rest by the reason they
// were skipped (a stable code, a count and the first few ids).
import { describeKeys, describeValue, isPlainObject, listWords, ownValue, unknownKeys } from '../args/argShape.ts';
import { ScheduleError } from '../errors.ts';
import { catalogMatcher } from '../reads/catalogPage.ts';
import { checkPauseNote } from './pause.ts';
import type { CatalogEntry } from './types.ts';

/** What a bulk call does to each task it selects: pause, resume, or run now (retry now for a failing task). */
export type BulkAction = 'pause' | 'resume' | 'trigger';

/** One task of one Session, as a bulk request lists it. */
export interface BulkTaskRef {
  readonly sessionId: string;
  readonly id: string;
}

/** Tasks skipped for one reason: the reason's code, how many, and the first `MAX_SKIPPED_IDS` of their ids. */
export interface BulkSkip {
  readonly code: string;
  readonly count: number;
  readonly ids: string[];
}

/** The answer to `remote.bulk`: `done + Σ skipped.count = matched`. */
export interface BulkResult {
  readonly action: BulkAction;
  /** How many distinct tasks the request selected. */
  readonly matched: number;
  /** How many of them were changed (paused, resumed, or run now). */
  readonly done: number;
  /** The others, by reason, in the order the reasons first came up. */
  readonly skipped: BulkSkip[];
}

/** Tasks changed per mailbox slot (one write each). */
export const BULK_BATCH_SIZE = 200;
/** The most ids an answer lists per reason. */
export const MAX_SKIPPED_IDS = 20;
/** The most tasks a request may list. */
export const MAX_BULK_TASKS = 100_000;
/** A skip reason of a task that needed nothing: pausing a paused task. */
export const ALREADY_PAUSED = 'already_paused';
/** A skip reason of a task that needed nothing: resuming a task that is not paused. */
export const NOT_PAUSED = 'not_paused';

const ACTIONS: readonly BulkAction[] = ['pause', 'resume', 'trigger'];
const MEMBERS = ['action', 'note', 'tasks', 'filter'];

/** A checked bulk request: the action, the note, and either the listed tasks or the filter's test. */
export interface ParsedBulkRequest {
  readonly action: BulkAction;
  readonly note?: string;
  /** The listed tasks, each once (the first listing of an id wins). */
  readonly tasks?: readonly BulkTaskRef[];
  /** The filter's test, for the filter form. */
  readonly matches?: (entry: CatalogEntry, nowMs: number) => boolean;
  /** The Session the filter names, for the filter form. */
  readonly sessionId?: string;
}

const refuse = (message: string): ScheduleError => new ScheduleError('invalid_selector', message);

function taskRefs(value: unknown): BulkTaskRef[] {
  if (!Array.isArray(value) || value.length > MAX_BULK_TASKS) {
    throw refuse(`remote.bulk needs tasks: an array of at most ${MAX_BULK_TASKS} {sessionId, id}; got ${describeValue(value)}.`);
  }
  const seen = new Set<string>();
  const refs: BulkTaskRef[] = [];
  for (const item of value) {
    const sessionId = isPlainObject(item) ? ownValue(item, 'sessionId') : undefined;
    const id = isPlainObject(item) ? ownValue(item, 'id') : undefined;
    if (
      !isPlainObject(item) ||
      typeof sessionId !== 'string' ||
      typeof id !== 'string' ||
      unknownKeys(item, ['sessionId', 'id']).length > 0
    ) {
      throw refuse(`remote.bulk needs each of tasks as {sessionId, id} with two strings; got ${describeValue(item)}.`);
    }
    if (seen.has(id)) continue;
    seen.add(id);
    refs.push({ sessionId, id });
  }
  return refs;
}

/**
 * Reads and checks a `remote.bulk` request.
 *
 * @throws ScheduleError `invalid_selector` for anything but `{action, note?, tasks}` or
 *   `{action, note?, filter}` with a known action, a note only for `pause` (`checkPauseNote`),
 *   a list of `{sessionId, id}` or a filter `remote.catalog` accepts.
 */
export function parseBulkRequest(request: unknown): ParsedBulkRequest {
  if (!isPlainObject(request)) {
    throw refuse(`remote.bulk takes {action, tasks} or {action, filter}; got ${describeValue(request)}.`);
  }
  const extra = unknownKeys(request, MEMBERS);
  if (extra.length > 0) throw refuse(`remote.bulk does not accept ${describeKeys(extra)}; accepted: ${listWords(MEMBERS)}.`);
  const action = ownValue(request, 'action');
  if (typeof action !== 'string' || !ACTIONS.includes(action as BulkAction)) {
    throw refuse(`remote.bulk needs action "pause", "resume" or "trigger"; got ${describeValue(action)}.`);
  }
  if (ownValue(request, 'note') !== undefined && action !== 'pause') throw refuse('remote.bulk takes a note only with action "pause".');
  const note = checkPauseNote(ownValue(request, 'note'));
  const tasks = ownValue(request, 'tasks');
  const filter = ownValue(request, 'filter');
  if ((tasks === undefined) === (filter === undefined)) throw refuse('remote.bulk takes exactly one of tasks or filter.');
  const base = { action: action as BulkAction, ...(note === undefined ? {} : { note }) };
  if (tasks !== undefined) return { ...base, tasks: taskRefs(tasks) };
  if (!isPlainObject(filter))
    throw refuse(`remote.bulk needs filter as an object (as remote.catalog takes it); got ${describeValue(filter)}.`);
  const sessionId = ownValue(filter, 'sessionId');
  const matches = catalogMatcher(filter);
  return { ...base, matches, ...(typeof sessionId === 'string' ? { sessionId } : {}) };
}

/** The ids a bulk call works through; serialised as their number only, so an inspector sees a small event. */
export class BulkTargets {
  constructor(readonly ids: readonly string[]) {}

  toJSON(): { readonly tasks: number } {
    return { tasks: this.ids.length };
  }
}

/** A bulk call between two batches: what it works through, where it is, and what it did so far. */
export interface BulkProgress {
  readonly action: BulkAction;
  readonly note?: string;
  readonly targets: BulkTargets;
  /** The index in `targets` of the next task to take. */
  readonly next: number;
  readonly matched: number;
  readonly done: number;
  readonly skipped: readonly BulkSkip[];
  /** The remembered call to write with the last batch, when the call has a `callId`. */
  readonly remember?: { readonly sessionId: string; readonly callId: string; readonly args: string };
}

/** `skipped` with `ids` added under `code`. */
export function withSkipped(skipped: readonly BulkSkip[], code: string, ids: readonly string[]): BulkSkip[] {
  if (ids.length === 0) return [...skipped];
  const out = [...skipped];
  const at = out.findIndex((skip) => skip.code === code);
  const old = at === -1 ? { code, count: 0, ids: [] } : (out[at] as BulkSkip);
  const room = MAX_SKIPPED_IDS - old.ids.length;
  const entry = { code, count: old.count + ids.length, ids: room > 0 ? [...old.ids, ...ids.slice(0, room)] : old.ids };
  if (at === -1) out.push(entry);
  else out[at] = entry;
  return out;
}

/** The answer a finished bulk call gives. */
export const bulkResult = (progress: BulkProgress): BulkResult => ({
  action: progress.action,
  matched: progress.matched,
  done: progress.done,
  skipped: progress.skipped.map((skip) => ({ code: skip.code, count: skip.count, ids: [...skip.ids] })),
});

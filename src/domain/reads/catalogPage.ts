// One page of the catalog for the remote `catalog` call when it is given options: a text search
// over title, prompt, id and Session, filters by Session, task id, kind, status and time-zone data
// drift (drift.ts), one of three orders and a keyset cursor. The cursor names the position after
// the last entry of a page (its sort key and task id), not an offset, so a page boundary stays put
// while tasks are created or deleted elsewhere. Pure: it validates the options and reads the
// entries it is given.
import { describeKeys, describeValue, isPlainObject, listWords, ownValue, unknownKeys } from '../args/argShape.ts';
import { ScheduleError } from '../errors.ts';
import type { CatalogEntry, TaskKind } from '../tasks/types.ts';
import { driftOf } from '../time/drift.ts';
import { instantMs } from '../time/instant.ts';
import type { WallClockFirings } from '../time/recurrence.ts';
import type { ScheduleCounts } from './stateCounts.ts';

/** Page size when the request gives no `limit`. */
export const DEFAULT_CATALOG_LIMIT = 50;
/** Largest page the remote `catalog` call returns. */
export const MAX_CATALOG_LIMIT = 500;

/** The catalog orders: next target (soonest first, ended tasks last), latest delivery first, title. */
export type CatalogSort = 'next' | 'lastDelivery' | 'title';

/**
 * The status filter: `active`, `inactive` (ended), `overdue` (active, not paused, with its target
 * at or before now), `scheduled` (active, not paused, with its target after now), `paused` (the
 * entry has `pausedAt`) and `failing` (the entry has `failure`: its latest delivery attempt failed).
 */
export type CatalogStatusFilter = 'active' | 'inactive' | 'overdue' | 'scheduled' | 'paused' | 'failing';

/** What the entries of a page must match; every member is optional and they combine with "and". */
export interface CatalogFilter {
  /** Case-insensitive substring of the title, prompt, task id or Session id. */
  readonly text?: string;
  /** Exactly this Session. */
  readonly sessionId?: string;
  /** Exactly this task id (a page of at most one entry: the way to read one task without its Session). */
  readonly id?: string;
  readonly kind?: TaskKind;
  readonly status?: CatalogStatusFilter;
  /**
   * `true`: only the active daily, weekly and cron tasks whose committed target the time-zone data
   * in use no longer yields (the tasks `remote.drift()` lists); `false`: only the other entries.
   */
  readonly drifted?: boolean;
}

/** `remote.catalog(request)`: one page of the catalog. */
export interface CatalogRequest {
  /** Integer 1–500; default 50. */
  readonly limit?: number;
  /** A `nextCursor` from an earlier page with the same `sort`. */
  readonly cursor?: string;
  readonly filter?: CatalogFilter;
  /** Default `next`. */
  readonly sort?: CatalogSort;
}

/** The answer to `remote.catalog(request)`. */
export interface CatalogPage<E = CatalogEntry> {
  readonly entries: E[];
  /** Present only when more entries match after this page. */
  readonly nextCursor?: string;
  /** How many entries match the filter, on every page. */
  readonly total: number;
  /**
   * How many tasks are in each state (stateCounts.ts): of the whole schedule (`all`, whatever the
   * filter) and of the Session the filter names (`session`, only when it names one).
   */
  readonly counts: ScheduleCounts;
}

/** A page as `catalogPage` builds it, before the counts (kept by the service) are added. */
export type CatalogPageEntries<E = CatalogEntry> = Omit<CatalogPage<E>, 'counts'>;

/** The Session a catalog request's filter names, if it names one (the request is checked elsewhere). */
export function filterSessionId(request: unknown): string | undefined {
  const filter = isPlainObject(request) ? ownValue(request, 'filter') : undefined;
  const sessionId = isPlainObject(filter) ? ownValue(filter, 'sessionId') : undefined;
  return typeof sessionId === 'string' ? sessionId : undefined;
}

/**
 * The task id a catalog request's filter names, if it names one as a string: the page then holds
 * at most that task, so a caller may hand `catalogPage` only its row instead of every row.
 */
export function filterTaskId(request: unknown): string | undefined {
  const filter = isPlainObject(request) ? ownValue(request, 'filter') : undefined;
  const id = isPlainObject(filter) ? ownValue(filter, 'id') : undefined;
  return typeof id === 'string' ? id : undefined;
}

const REQUEST_MEMBERS = ['limit', 'cursor', 'filter', 'sort'];
const FILTER_MEMBERS = ['text', 'sessionId', 'id', 'kind', 'status', 'drifted'];
const SORTS: readonly CatalogSort[] = ['next', 'lastDelivery', 'title'];
const STATUSES: readonly CatalogStatusFilter[] = ['active', 'inactive', 'overdue', 'scheduled', 'paused', 'failing'];
const KINDS: readonly TaskKind[] = ['after', 'at', 'every', 'daily', 'weekly', 'cron'];
const CURSOR_PREFIX = 'c1.';

type SortKey = readonly (number | string)[];

interface Position {
  readonly key: SortKey;
  readonly id: number;
}

interface Options {
  readonly limit: number;
  readonly after?: Position;
  readonly sort: CatalogSort;
  readonly matches: (entry: CatalogEntry, nowMs: number) => boolean;
}

const refuse = (message: string): ScheduleError => new ScheduleError('invalid_selector', message);

/**
 * The number of a `sch_<n>` id, n of 1–15 digits (ids of another form sort first, by text, and
 * are -1 here). Read digit by digit: it runs for every matching entry of a page.
 */
function idNumber(id: string): number {
  if (id.length < 5 || id.length > 19 || !id.startsWith('sch_')) return -1;
  let n = 0;
  for (let i = 4; i < id.length; i++) {
    const digit = id.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    n = n * 10 + digit;
  }
  return n;
}

function sortKey(entry: CatalogEntry, sort: CatalogSort): SortKey {
  const { record } = entry;
  switch (sort) {
    case 'next':
      return entry.status === 'active' ? [0, instantMs(record.scheduledAt)] : [1, -instantMs(record.scheduledAt)];
    case 'lastDelivery':
      return entry.lastDelivery === undefined ? [1, 0] : [0, -instantMs(entry.lastDelivery.deliveredAt)];
    case 'title':
      return [record.title.toLowerCase(), record.title];
  }
}

function compareKeys(a: SortKey, b: SortKey): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

const comparePositions = (a: Position, b: Position, aId: string, bId: string): number =>
  compareKeys(a.key, b.key) || a.id - b.id || (aId < bId ? -1 : aId > bId ? 1 : 0);

/** The opaque cursor for the position of `entry` under `sort`. */
function encodeCursor(sort: CatalogSort, entry: CatalogEntry): string {
  const json = JSON.stringify([sort, sortKey(entry, sort), entry.record.id]);
  return CURSOR_PREFIX + Buffer.from(json, 'utf8').toString('base64url');
}

function decodeCursor(cursor: unknown, sort: CatalogSort): { position: Position; id: string } {
  const bad = () => refuse(`cursor ${describeValue(cursor)} is not accepted: pass a nextCursor from an earlier page of remote.catalog.`);
  if (typeof cursor !== 'string' || !cursor.startsWith(CURSOR_PREFIX) || cursor.length > 4096) throw bad();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor.slice(CURSOR_PREFIX.length), 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (!Array.isArray(value) || value.length !== 3) throw bad();
  const [madeFor, key, id] = value as unknown[];
  if (typeof madeFor !== 'string' || !SORTS.includes(madeFor as CatalogSort) || typeof id !== 'string') throw bad();
  if (!Array.isArray(key) || key.length !== 2 || !key.every((k) => typeof k === 'string' || (typeof k === 'number' && Number.isFinite(k))))
    throw bad();
  if (madeFor !== sort) {
    throw refuse(`cursor was made for sort ${describeValue(madeFor)}, not ${describeValue(sort)}: start again without a cursor.`);
  }
  return { position: { key: key as SortKey, id: idNumber(id) }, id };
}

function oneOf<T extends string>(name: string, value: unknown, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !allowed.includes(value as T)) {
    throw refuse(
      `${name} ${describeValue(value)} is not accepted: use ${listWords(
        allowed.map((a) => JSON.stringify(a)),
        'or',
      )}.`,
    );
  }
  return value as T;
}

function stringMember(name: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw refuse(`${name} must be a string; got ${describeValue(value)}.`);
  return value;
}

function booleanMember(name: string, value: unknown): boolean | undefined {
  if (value === undefined || typeof value === 'boolean') return value;
  throw refuse(`${name} ${describeValue(value)} is not accepted: use true or false.`);
}

function statusMatches(status: CatalogStatusFilter, entry: CatalogEntry, nowMs: number): boolean {
  if (status === 'inactive') return entry.status === 'inactive';
  if (status === 'paused') return entry.pausedAt !== undefined;
  if (status === 'failing') return entry.failure !== undefined;
  if (entry.status !== 'active') return false;
  if (status === 'active') return true;
  if (entry.pausedAt !== undefined) return false;
  const due = instantMs(entry.record.scheduledAt) <= nowMs;
  return status === 'overdue' ? due : !due;
}

/**
 * The test a catalog filter makes of an entry at `nowMs`: what `remote.catalog` pages through and
 * `remote.bulk` selects with.
 *
 * @throws ScheduleError `invalid_selector` for a filter that is not an object of the members above.
 */
export const catalogMatcher = (filter: unknown): ((entry: CatalogEntry, nowMs: number) => boolean) => filterOf(filter);

function filterOf(filter: unknown): Options['matches'] {
  if (filter === undefined) return () => true;
  if (!isPlainObject(filter))
    throw refuse(`filter must be an object with ${listWords(FILTER_MEMBERS, 'or')}; got ${describeValue(filter)}.`);
  const extra = unknownKeys(filter, FILTER_MEMBERS);
  if (extra.length > 0) throw refuse(`filter does not accept ${describeKeys(extra)}; accepted: ${listWords(FILTER_MEMBERS)}.`);
  const text = stringMember('filter.text', ownValue(filter, 'text'))?.trim().toLowerCase();
  const sessionId = stringMember('filter.sessionId', ownValue(filter, 'sessionId'));
  const id = stringMember('filter.id', ownValue(filter, 'id'));
  const kind = oneOf('filter.kind', ownValue(filter, 'kind'), KINDS);
  const status = oneOf('filter.status', ownValue(filter, 'status'), STATUSES);
  const drifted = booleanMember('filter.drifted', ownValue(filter, 'drifted'));
  // Rules are prepared once per distinct rule for the whole request.
  const firings = new Map<string, WallClockFirings>();
  return (entry, nowMs) => {
    if (sessionId !== undefined && entry.sessionId !== sessionId) return false;
    if (id !== undefined && entry.record.id !== id) return false;
    if (kind !== undefined && entry.record.kind !== kind) return false;
    if (status !== undefined && !statusMatches(status, entry, nowMs)) return false;
    if (text !== undefined && text !== '') {
      const { record } = entry;
      const found =
        record.title.toLowerCase().includes(text) ||
        record.id.toLowerCase().includes(text) ||
        entry.sessionId.toLowerCase().includes(text) ||
        record.prompt.toLowerCase().includes(text);
      if (!found) return false;
    }
    // Last: the one check that runs the recurrence engine.
    return drifted === undefined || (driftOf(entry, firings) !== undefined) === drifted;
  };
}

/**
 * Reads and checks the options of `remote.catalog(request)`.
 *
 * @throws ScheduleError `invalid_selector` for a request that is not an object, an unknown
 *   member, a bad `filter`, `sort` or `cursor` (or a cursor made for another sort);
 *   `invalid_rule` when `limit` is not an integer 1–500.
 */
function optionsOf(request: unknown): Options & { readonly afterId?: string } {
  if (!isPlainObject(request)) {
    throw refuse(`remote.catalog takes nothing, or an object with ${listWords(REQUEST_MEMBERS, 'or')}; got ${describeValue(request)}.`);
  }
  const extra = unknownKeys(request, REQUEST_MEMBERS);
  if (extra.length > 0) throw refuse(`remote.catalog does not accept ${describeKeys(extra)}; accepted: ${listWords(REQUEST_MEMBERS)}.`);
  const limit = ownValue(request, 'limit') ?? DEFAULT_CATALOG_LIMIT;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_CATALOG_LIMIT) {
    throw new ScheduleError(
      'invalid_rule',
      `limit ${describeValue(limit)} is not accepted: use an integer from 1 to ${MAX_CATALOG_LIMIT}.`,
    );
  }
  const sort = oneOf('sort', ownValue(request, 'sort'), SORTS) ?? 'next';
  const matches = filterOf(ownValue(request, 'filter'));
  const cursor = ownValue(request, 'cursor');
  if (cursor === undefined) return { limit, sort, matches };
  const { position, id } = decodeCursor(cursor, sort);
  return { limit, sort, matches, after: position, afterId: id };
}

/**
 * One page of `entries` (in any order) for `remote.catalog(request)` at `nowMs`: the matching
 * entries in the requested order, from just after the cursor's position, at most `limit` of
 * them, with `nextCursor` while more remain and the number of matching entries as `total`.
 * Entries are returned as given (a caller may pass rows and map the page).
 *
 * @throws ScheduleError `invalid_selector` or `invalid_rule` for bad options (see `optionsOf`).
 */
export function catalogPage<E extends CatalogEntry>(entries: Iterable<E>, request: unknown, nowMs: number): CatalogPageEntries<E> {
  const options = optionsOf(request);
  const { after, afterId } = options;
  const order = (a: Matched<E>, b: Matched<E>): number => comparePositions(a.position, b.position, a.entry.record.id, b.entry.record.id);
  // One pass: matching entries are counted, and of those past the cursor only as many as the page
  // needs (one more tells whether another page follows) are kept, in order. Nothing is held per
  // entry, so a catalog of 100,000 tasks leaves no 100,000-item array for the collector.
  const picked: Matched<E>[] = [];
  let total = 0;
  for (const entry of entries) {
    if (!options.matches(entry, nowMs)) continue;
    total++;
    const item = { entry, position: { key: sortKey(entry, options.sort), id: idNumber(entry.record.id) } };
    if (after !== undefined && afterId !== undefined && comparePositions(item.position, after, entry.record.id, afterId) <= 0) continue;
    keepSmallest(picked, item, options.limit + 1, order);
  }
  const page = picked.slice(0, options.limit).map((m) => m.entry);
  const last = page.at(-1);
  return {
    entries: page,
    ...(picked.length > options.limit && last !== undefined ? { nextCursor: encodeCursor(options.sort, last) } : {}),
    total,
  };
}

/** A matching entry with its position in the requested order. */
interface Matched<E> {
  readonly entry: E;
  readonly position: Position;
}

/** Adds `item` to `kept` (sorted by `order`, at most `n` items) when it is among the `n` smallest seen. */
function keepSmallest<T>(kept: T[], item: T, n: number, order: (a: T, b: T) => number): void {
  const worst = kept[kept.length - 1];
  if (kept.length >= n && worst !== undefined && order(item, worst) >= 0) return;
  let lo = 0;
  let hi = kept.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const k = kept[mid];
    if (k !== undefined && order(k, item) <= 0) lo = mid + 1;
    else hi = mid;
  }
  kept.splice(lo, 0, item);
  if (kept.length > n) kept.pop();
}

// The requests the HTTP isolation property generates, as plain data (so a counterexample prints
// readably); `{port}` and `{otherPort}` in a header stand for the Host's port and another one.
// Aimed requests go to Session A's routes — `/api/sessions/A/tools/:name` and the task routes —
// with B's task ids (also percent-encoded), near misses of them and A's own ids, B's exact
// record as `expected`, and `sessionId: "B"` slipped into the body, the query or a header.
// Guarded requests carry something the Host must refuse before any route runs — a foreign
// Origin or `Sec-Fetch-Site: cross-site` on a write, a body over 64 KiB, a foreign Host header —
// and target any route that would otherwise change something: A's and B's writes, the test clock.
import fc from 'fast-check';
import { MAX_BODY_BYTES } from '../../src/console/requestGuards.ts';
import type { RawRequest } from './httpRequests.ts';
import { IDS_OF_A, IDS_OF_B, worldRows } from './world.ts';

/** Why a guarded request must be refused. */
export type Guard = 'origin' | 'crossSite' | 'host' | 'oversized';

/** A request to one of A's routes; `targetsB` when it names one of B's tasks. */
export interface Aimed {
  readonly kind: 'aimed';
  readonly request: RawRequest;
  readonly targetsB: boolean;
}

/** A request the Host must refuse for `guard`. */
export interface Guarded {
  readonly kind: 'guarded';
  readonly guard: Guard;
  readonly request: RawRequest;
}

const RECORDS = new Map(worldRows().map((row) => [row.record.id, row.record] as const));
const B_IDS = new Set(IDS_OF_B);
const JSON_TYPE = { 'content-type': 'application/json' };

const decoded = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

/** Path segments naming a task: B's ids, encoded forms and near misses, A's ids. */
const idSegment = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...IDS_OF_B) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '%73ch_8',
      'sch%5F9',
      'sch_10%20',
      'SCH_11',
      'sch_012',
      'sch_13%00',
      '..%2FB%2Ftasks%2Fsch_8',
      'sch_8%2F',
      '%2e%2e',
      'sch_8;B',
    ),
  },
  { weight: 2, arbitrary: fc.constantFrom(...IDS_OF_A) },
);
/** Ids in tool arguments. */
const idValue = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...IDS_OF_B) },
  { weight: 3, arbitrary: fc.constantFrom('sch_8 ', 'SCH_9', 'sch_010', 'sch_11\u0000', '../B/sch_12', 'B/sch_13', 'sch_14\n') },
  { weight: 2, arbitrary: fc.constantFrom(...IDS_OF_A) },
);
const sessionSegment = fc.constantFrom('A', 'A', 'A', '%41');
const change = fc.constantFrom<Record<string, unknown> | undefined>(
  undefined,
  { kind: 'every', every_seconds: 60 },
  { kind: 'at', at: '2031-06-01T00:00:00Z' },
  { kind: 'cron', expression: '0 0 * * *', time_zone: 'UTC' },
);
/** Ways of naming Session B besides the path. */
const smuggle = fc.constantFrom<'none' | 'body' | 'snake' | 'proto' | 'query' | 'header'>(
  'none',
  'none',
  'body',
  'snake',
  'proto',
  'query',
  'header',
);

function bodyText(args: Record<string, unknown>, how: string): string {
  if (how === 'body') return JSON.stringify({ ...args, sessionId: 'B' });
  if (how === 'snake') return JSON.stringify({ ...args, session_id: 'B' });
  if (how === 'proto') return `{"__proto__":{"sessionId":"B","id":"sch_8"},${JSON.stringify(args).slice(1)}`;
  return JSON.stringify(args);
}

const aimed = (method: string, path: string, how: string, targetsB: boolean, body?: string): Aimed => ({
  kind: 'aimed',
  targetsB,
  request: {
    method,
    path: how === 'query' ? `${path}${path.includes('?') ? '&' : '?'}sessionId=B` : path,
    headers: { ...(body === undefined ? {} : JSON_TYPE), ...(how === 'header' ? { 'x-session-id': 'B' } : {}) },
    ...(body === undefined ? {} : { body }),
  },
});

/** A request to one of Session A's routes. */
export const aimedRequest: fc.Arbitrary<Aimed> = fc
  .record({
    route: fc.constantFrom(
      'tool',
      'tool',
      'tool',
      'list',
      'get',
      'history',
      'preview',
      'transcript',
      'patch',
      'patch',
      'delete',
      'delete',
      'pause',
      'resume',
      'trigger',
    ),
    tool: fc.constantFrom('schedule_delete', 'schedule_update', 'schedule_list', 'schedule_create', 'schedule%5Fdelete', 'SCHEDULE_DELETE'),
    session: sessionSegment,
    idSegment,
    idValue,
    change,
    how: smuggle,
  })
  .map(({ route, tool, session, idSegment: seg, idValue: id, change: c, how }) => {
    const base = `/api/sessions/${session}`;
    const task = `${base}/tasks/${seg}`;
    const segTargetsB = B_IDS.has(decoded(seg));
    switch (route) {
      case 'tool': {
        const name = decoded(tool);
        const args: Record<string, unknown> =
          name === 'schedule_create'
            ? { title: 'mine', prompt: 'of A', after_seconds: 600 }
            : name === 'schedule_list'
              ? {}
              : { id, ...(name === 'schedule_update' ? { title: 'taken', ...(c === undefined ? {} : { change: c }) } : {}) };
        const named = (name === 'schedule_delete' || name === 'schedule_update') && B_IDS.has(id);
        return aimed('POST', `${base}/tools/${tool}`, how, named, bodyText(args, how));
      }
      case 'list':
        return aimed('GET', `${base}/tasks`, how, false);
      case 'get':
        return aimed('GET', task, how, segTargetsB);
      case 'history':
        return aimed('GET', `${task}/history?limit=100`, how, segTargetsB);
      case 'preview':
        return aimed('GET', `${task}/preview`, how, segTargetsB);
      case 'transcript':
        return aimed('GET', `${base}/transcript`, how, false);
      case 'patch': {
        const expected = RECORDS.get(decoded(seg)) ?? RECORDS.get('sch_8');
        const body = { expected, title: 'taken', ...(c === undefined ? {} : { change: c }) };
        return aimed('PATCH', task, how, segTargetsB, bodyText(body, how));
      }
      case 'pause':
      case 'resume':
      case 'trigger':
        return aimed('POST', `${task}/${route}`, how, segTargetsB, bodyText({}, how));
      default:
        return aimed('DELETE', task, how, segTargetsB);
    }
  });

/** Writes that would change stored data if they were let through. */
const writeTargets: ReadonlyArray<Omit<RawRequest, 'headers'>> = [
  { method: 'POST', path: '/api/sessions/A/tools/schedule_create', body: JSON.stringify({ title: 'x', prompt: 'y', after_seconds: 60 }) },
  { method: 'POST', path: '/api/sessions/A/tools/schedule_delete', body: JSON.stringify({ id: 'sch_1' }) },
  { method: 'POST', path: '/api/sessions/B/tools/schedule_delete', body: JSON.stringify({ id: 'sch_8' }) },
  { method: 'PATCH', path: '/api/sessions/A/tasks/sch_2', body: JSON.stringify({ expected: RECORDS.get('sch_2'), title: 'x' }) },
  { method: 'PATCH', path: '/api/sessions/B/tasks/sch_9', body: JSON.stringify({ expected: RECORDS.get('sch_9'), title: 'x' }) },
  { method: 'DELETE', path: '/api/sessions/A/tasks/sch_3' },
  { method: 'DELETE', path: '/api/sessions/B/tasks/sch_10' },
  { method: 'POST', path: '/api/sessions/B/tasks/sch_9/pause' },
  { method: 'POST', path: '/api/sessions/B/tasks/sch_9/trigger' },
  { method: 'POST', path: '/api/test/clock', body: JSON.stringify({ advanceMs: 30 * 86_400_000 }) },
];
/** Reads, refused too when the Host header is foreign. */
const readTargets: ReadonlyArray<Omit<RawRequest, 'headers'>> = [
  { method: 'GET', path: '/api/sessions/B/transcript' },
  { method: 'GET', path: '/api/catalog' },
];

const FOREIGN_ORIGINS = [
  'http://evil.example',
  'null',
  'http://127.0.0.1:{otherPort}',
  'http://localhost:{otherPort}',
  'https://127.0.0.1:{port}',
  'http://127.0.0.1:{port}.evil.example',
  'http://evil.example:{port}',
  'http://127.0.0.1',
];
const FOREIGN_HOSTS = [
  'evil.example',
  'evil.example:{port}',
  '127.0.0.1:{otherPort}',
  'localhost',
  '127.0.0.1',
  'localhost.evil.example:{port}',
  '[::1]:{otherPort}',
];

/** A request the Host must refuse, and why. */
export const guardedRequest: fc.Arbitrary<Guarded> = fc.oneof(
  fc
    .record({ target: fc.constantFrom(...writeTargets), origin: fc.constantFrom(...FOREIGN_ORIGINS) })
    .map(
      ({ target, origin }): Guarded => ({ kind: 'guarded', guard: 'origin', request: { ...target, headers: { ...JSON_TYPE, origin } } }),
    ),
  fc.record({ target: fc.constantFrom(...writeTargets), spoof: fc.boolean() }).map(
    ({ target, spoof }): Guarded => ({
      kind: 'guarded',
      guard: 'crossSite',
      request: {
        ...target,
        headers: { ...JSON_TYPE, 'sec-fetch-site': 'cross-site', ...(spoof ? { origin: 'http://127.0.0.1:{port}' } : {}) },
      },
    }),
  ),
  fc
    .record({ target: fc.constantFrom(...writeTargets, ...readTargets), host: fc.constantFrom(...FOREIGN_HOSTS), rebind: fc.boolean() })
    .map(
      ({ target, host, rebind }): Guarded => ({
        kind: 'guarded',
        guard: 'host',
        request: { ...target, headers: { ...JSON_TYPE, host, ...(rebind ? { origin: `http://${host}` } : {}) } },
      }),
    ),
  fc
    .record({ target: fc.constantFrom(...writeTargets), extra: fc.integer({ min: 1, max: 80_000 }), chunked: fc.boolean() })
    .map(({ target, extra, chunked }): Guarded => {
      const args = target.body === undefined ? '}' : target.body.slice(1);
      const pad = 'x'.repeat(MAX_BODY_BYTES + extra);
      const body = `{"pad":"${pad}"${args === '}' ? '' : ','}${args}`;
      return { kind: 'guarded', guard: 'oversized', request: { ...target, headers: JSON_TYPE, body, chunked } };
    }),
);

/** The request with `{port}` and `{otherPort}` filled in. */
export function withPort(request: RawRequest, port: number): RawRequest {
  const fill = (value: string) => value.replaceAll('{port}', String(port)).replaceAll('{otherPort}', String(port + 1));
  return { ...request, headers: Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, fill(v)])) };
}

// The live inspector over HTTP: `GET /api/inspect` answers the actor tree and the recent entries as
// superjson (shape, Session filter, bounded limit, refused parameters); `GET /api/inspect/events`
// streams a snapshot and then updates for one Session or all; a client that falls behind gets a
// fresh snapshot instead of an unbounded queue; closing the Host ends the streams.
import superjson from 'superjson';
import { MAX_PENDING_UPDATES, openInspectorFeed, type SummaryUpdate } from '../../src/console/inspectorFeed.ts';
import { DEFAULT_INSPECT_LIMIT, MAX_INSPECT_LIMIT } from '../../src/console/inspectRoutes.ts';
import { sessionGroupId } from '../../src/entries/machines.ts';
import {
  type InspectorEntry,
  type InspectorSummary,
  type InspectorUpdate,
  type InspectorView,
  parseInspectorSnapshot,
} from '../../src/index.ts';
import { openEvents, startTestHost, type TestHost } from './support.ts';

let t: TestHost;
afterEach(async () => {
  await t?.close();
});

async function inspect(query = ''): Promise<{ status: number; type: string | null; text: string }> {
  const response = await fetch(`${t.url}/api/inspect${query}`);
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

async function view(query = ''): Promise<InspectorView> {
  const reply = await inspect(query);
  expect(reply.status).toBe(200);
  return parseInspectorSnapshot(reply.text);
}

async function createTask(sessionId: string, title: string, everySeconds: number): Promise<string> {
  const r = await t.create(sessionId, { title, prompt: title, every_seconds: everySeconds });
  expect(r.status).toBe(200);
  return r.body.id;
}

const taskStates = (events: readonly InspectorEntry[], id: string) =>
  events.filter((e) => e.type === 'snapshot' && e.actorId === id).map((e) => e.state);

describe('GET /api/inspect', () => {
  it('answers the actor tree and the recent entries as superjson', async () => {
    t = await startTestHost();
    const id = await createTask('demo', 'Tick', 60);
    const reply = await inspect();
    expect(reply.status).toBe(200);
    expect(reply.type).toMatch(/^application\/json/);
    expect(JSON.parse(reply.text)).toHaveProperty('json.actors');

    const before = parseInspectorSnapshot(reply.text);
    const supervisor = before.actors.find((a) => a.kind === 'supervisor');
    expect(supervisor).toMatchObject({ id: 'supervisor', status: 'active', state: { running: 'idle' } });
    const group = before.actors.find((a) => a.kind === 'group' && a.id.startsWith('sessions:'));
    expect(group).toMatchObject({ id: sessionGroupId('demo'), parent: supervisor?.key });
    expect(before.actors.find((a) => a.kind === 'session')).toMatchObject({ id: 'session:demo', session: 'demo', parent: group?.key });
    expect(before.actors.find((a) => a.kind === 'task')).toMatchObject({
      id,
      session: 'demo',
      state: 'scheduled',
      lastEvent: 'xstate.init',
      title: 'Tick',
      target: '2030-01-07T08:01:00.000Z',
    });
    expect(before.counts).toMatchObject({ supervisor: 1, group: 2, session: 1, task: 1 });
    expect(before.ring).toEqual({ capacity: 500, dropped: 0 });
    // Entries are stamped by the Host's clock.
    expect(before.events.every((e) => e.at === Date.parse('2030-01-07T08:00:00.000Z'))).toBe(true);

    await t.advance(60_000);
    const after = await view();
    expect(taskStates(after.events, id)).toEqual(['scheduled', 'overdue', 'delivering', 'scheduled']);
    expect(after.actors.find((a) => a.id === id)).toMatchObject({
      state: 'scheduled',
      lastEvent: 'delivery.committed',
      target: '2030-01-07T08:02:00.000Z',
    });
    const seqs = after.events.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  });

  it('?sessionId= narrows to that Session’s actors (with their ancestors) and its entries', async () => {
    t = await startTestHost();
    await createTask('demo', 'Tick', 60);
    const other = await createTask('other', 'Tock', 60);
    await t.advance(60_000);
    const narrowed = await view('?sessionId=other');
    expect(narrowed.actors.map((a) => a.id)).toEqual(['supervisor', sessionGroupId('other'), 'session:other', 'tasks:0', other]);
    expect(narrowed.events.length).toBeGreaterThan(0);
    expect(narrowed.events.every((e) => e.session === 'other')).toBe(true);
    expect(taskStates(narrowed.events, other)).toEqual(['scheduled', 'overdue', 'delivering', 'scheduled']);
    expect((await view('?sessionId=nobody')).actors).toEqual([]);
  });

  it('?limit= keeps the newest entries; without it the answer holds at most the default', async () => {
    t = await startTestHost();
    await createTask('demo', 'Tick', 60);
    for (let i = 0; i < 6; i++) await t.advance(60_000);
    const all = await view(`?limit=${MAX_INSPECT_LIMIT}`);
    expect(all.events.length).toBeGreaterThan(DEFAULT_INSPECT_LIMIT);
    expect((await view()).events).toEqual(all.events.slice(-DEFAULT_INSPECT_LIMIT));
    expect((await view('?limit=3')).events).toEqual(all.events.slice(-3));
    expect((await view('?limit=2&sessionId=demo')).events).toEqual(all.events.filter((e) => e.session === 'demo').slice(-2));
  });

  it.each(['0', '-1', '2.5', 'ten', '', `${MAX_INSPECT_LIMIT + 1}`, '99999'])('refuses limit=%j with invalid_request', async (limit) => {
    t = await startTestHost();
    const reply = await t.get(`/api/inspect?limit=${encodeURIComponent(limit)}`);
    expect(reply).toEqual({
      status: 400,
      body: { code: 'invalid_request', message: `limit must be a whole number from 1 to ${MAX_INSPECT_LIMIT}.` },
    });
  });

  it('refuses a malformed Session id, on the view and on the stream', async () => {
    t = await startTestHost();
    for (const path of ['/api/inspect?sessionId=..%2Fx', '/api/inspect/events?sessionId=', '/api/inspect/events?limit=0']) {
      const reply = await t.get<{ code: string }>(path);
      expect(reply.status).toBe(400);
      expect(reply.body.code).toBe(path.includes('limit') ? 'invalid_request' : 'invalid_session_id');
    }
  });
});

describe('GET /api/inspect/events', () => {
  const readStream = (query = '') => openEvents(t.url, `/api/inspect/events${query}`, (text) => superjson.parse<unknown>(text));
  type Seen = ReadonlyArray<{ event: string; data: unknown }>;
  const updates = (seen: Seen) => seen.flatMap((e) => (e.event === 'update' ? [e.data as InspectorUpdate | SummaryUpdate] : []));
  const entryUpdates = (seen: Seen) => updates(seen).flatMap((u) => (u.type === 'entry' ? [u] : []));
  const summaries = (seen: Seen) => updates(seen).flatMap((u) => (u.type === 'summary' ? [u.summary] : []));
  /** Every entry the client was given, streamed or in a summary, once each, in order. */
  const entries = (seen: Seen) => {
    const bySeq = new Map<number, InspectorEntry>();
    for (const u of entryUpdates(seen)) bySeq.set(u.entry.seq, u.entry);
    for (const summary of summaries(seen)) for (const e of summary.events) bySeq.set(e.seq, e);
    return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
  };

  it('streams a summary, then fresh summaries and the entries of the actors in view, for one Session', async () => {
    t = await startTestHost();
    const stream = await readStream('?sessionId=demo');
    expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const [first] = await stream.until((seen) => seen.length > 0);
    expect(first?.event).toBe('snapshot');
    const supervisorOnly = first?.data as InspectorSummary;
    expect(supervisorOnly).toMatchObject({ events: [], sessions: [], sessionCount: 0, taskCount: 0, ring: { capacity: 500 } });
    expect(supervisorOnly.actors.map((a) => a.kind)).toEqual(['supervisor', 'effect', 'effect', 'effect']);

    // The new Session's actors hang under a Session group the view did not hold: a fresh summary brings them in.
    const id = await createTask('demo', 'Tick', 60);
    await createTask('other', 'Tock', 60);
    const refreshed = await stream.until((s) => summaries(s).some((summary) => summary.actors.some((a) => a.id === id)));
    const summary = summaries(refreshed).at(-1);
    expect(summary?.sessions).toEqual([expect.objectContaining({ sessionId: 'demo', tasks: 1, due: 0, next: '2030-01-07T08:01:00.000Z' })]);
    expect(summary?.actors.some((a) => a.session === 'other')).toBe(false);

    // From then on its entries stream one by one.
    await t.advance(60_000);
    const seen = await stream.until((s) => taskStates(entries(s), id).length === 4);
    expect(taskStates(entries(seen), id)).toEqual(['scheduled', 'overdue', 'delivering', 'scheduled']);
    expect(seen.slice(1).every((e) => e.event === 'update')).toBe(true);
    expect(entries(seen).every((e) => e.session === 'demo')).toBe(true);
    // Each update carries its actor as it is after the entry, while it lives.
    const last = entryUpdates(seen).findLast((u) => u.entry.actorId === id);
    expect(last?.actor).toMatchObject({ state: 'scheduled', target: '2030-01-07T08:02:00.000Z' });
    stream.close();
  });

  it('subscribes to the inspector only while a client is connected', async () => {
    t = await startTestHost();
    const { inspector } = t.host;
    const subscribe = inspector.subscribe;
    let listening = 0;
    vi.spyOn(inspector, 'subscribe').mockImplementation((listener, filter) => {
      listening++;
      const off = subscribe(listener, filter);
      return () => {
        listening--;
        off();
      };
    });
    expect(listening).toBe(0);
    const stream = await readStream();
    await stream.until((seen) => seen.length > 0);
    expect(listening).toBe(1);
    stream.close();
    await vi.waitFor(() => expect(listening).toBe(0));
  });

  it('close() ends open inspector streams', async () => {
    t = await startTestHost();
    const stream = await readStream();
    await stream.until((seen) => seen.length > 0);
    await t.host.close();
    await expect(stream.until(() => false)).rejects.toThrow(/stream ended/);
  });
});

describe('a client’s inspector feed', () => {
  it('sends the snapshot first, then each later update once, in order', async () => {
    t = await startTestHost();
    await createTask('demo', 'Tick', 60);
    const feed = openInspectorFeed(t.host.inspector, {});
    const first = await feed.next();
    expect(first?.event).toBe('snapshot');
    const newestSeen = parseInspectorSnapshot(first?.data ?? '').events.at(-1)?.seq ?? 0;
    const id = await createTask('demo', 'Tock', 60);
    const seqs: number[] = [];
    for (let found = false; !found; ) {
      const message = await feed.next();
      expect(message?.event).toBe('update');
      const update = superjson.parse<InspectorUpdate>(message?.data ?? '');
      if (update.type !== 'entry') continue;
      seqs.push(update.entry.seq);
      found = update.entry.actorId === id && update.entry.type === 'snapshot';
    }
    expect(seqs[0]).toBe(newestSeen + 1);
    expect(seqs).toEqual(seqs.map((_, i) => newestSeen + 1 + i));
    feed.close();
    expect(await feed.next()).toBeUndefined();
  });

  it('a client that falls more than its bound behind gets a fresh snapshot instead of the missed updates', async () => {
    t = await startTestHost();
    expect(MAX_PENDING_UPDATES).toBeGreaterThan(0);
    const feed = openInspectorFeed(t.host.inspector, {}, { limits: { maxMessages: 4, maxBytes: Number.POSITIVE_INFINITY } });
    expect((await feed.next())?.event).toBe('snapshot');
    // One task creation records far more than four entries of actors in view while nobody reads.
    const id = await createTask('demo', 'Tick', 60);
    const message = await feed.next();
    expect(message?.event).toBe('snapshot');
    const caughtUp = parseInspectorSnapshot(message?.data ?? '');
    expect(caughtUp.actors.find((a) => a.id === id)).toMatchObject({ state: 'scheduled', title: 'Tick' });
    // A waiting read resolves once the feed is closed.
    const waiting = feed.next();
    feed.close();
    expect(await waiting).toBeUndefined();
  });
});

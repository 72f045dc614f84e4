// A client's inspector feed over a service of 400 live tasks in 40 Sessions (manual clock, fake
// Sessions, memory storage): it opens with the bounded summary, streams only the entries of the
// actors in that view while the others' activity brings a fresh summary instead; a new task under
// a Session in view joins at once while the list has room and the text filter selects it; entries
// are sent at most `maxEntriesPerSecond` a second; and a client that stops reading is held to its
// bound.
import superjson from 'superjson';
import { memoryStorage } from '../../src/adapters/memoryStorage.ts';
import { type FeedMessage, type InspectorFeed, openInspectorFeed, type SummaryUpdate } from '../../src/console/inspectorFeed.ts';
import { encodeDocument } from '../../src/domain/codec/index.ts';
import type { TaskRow } from '../../src/domain/tasks/types.ts';
import { createScheduleInspector, type InspectorSummary, type InspectorUpdate, type ScheduleInspector } from '../../src/index.ts';
import { createScheduleService, type ScheduleService } from '../../src/service.ts';
import { createFakeSessions, createManualClock, type ManualClock } from '../../src/testing.ts';

const T0 = '2030-01-01T08:00:00.000Z';
const MINUTE = 60_000;

/** Task i (1–400) in Session `s<i % 40>`, due i minutes after T0, daily. */
const rows = (): TaskRow[] =>
  Array.from({ length: 400 }, (_, k) => ({
    sessionId: `s${(k + 1) % 40}`,
    status: 'active',
    record: {
      id: `sch_${k + 1}`,
      kind: 'every',
      everySeconds: 86_400,
      title: `Task ${k + 1}`,
      prompt: 'p',
      scheduledAt: new Date(Date.parse(T0) + (k + 1) * MINUTE).toISOString(),
    },
    deliveryHistory: { records: [], earlierRecordsUnavailable: false, earlierRecordsPruned: false },
  })) as TaskRow[];

let svc: ScheduleService;
let clock: ManualClock;
let inspector: ScheduleInspector;
const feeds: InspectorFeed[] = [];

beforeEach(async () => {
  clock = createManualClock(T0);
  inspector = createScheduleInspector({ now: clock.now });
  const storage = memoryStorage(encodeDocument({ tasks: rows(), nextTaskNumber: 401 }));
  svc = await createScheduleService({
    sessions: createFakeSessions(),
    storage,
    clock,
    inspect: inspector.inspect,
    config: { passivationHorizonMs: null },
  });
  clock.attach(svc);
  await svc.whenIdle();
});
afterEach(async () => {
  for (const feed of feeds.splice(0)) feed.close();
  await svc.close();
});

type Parsed = { event: 'snapshot'; summary: InspectorSummary } | { event: 'update'; update: InspectorUpdate | SummaryUpdate };
const parse = (message: FeedMessage | undefined): Parsed => {
  if (message === undefined) throw new Error('the feed ended');
  return message.event === 'snapshot'
    ? { event: 'snapshot', summary: superjson.parse<InspectorSummary>(message.data) }
    : { event: 'update', update: superjson.parse<InspectorUpdate | SummaryUpdate>(message.data) };
};

/** Reads messages until `done` accepts one; returns them all. */
async function readUntil(feed: InspectorFeed, done: (message: Parsed) => boolean): Promise<Parsed[]> {
  const seen: Parsed[] = [];
  for (;;) {
    const message = parse(await feed.next());
    seen.push(message);
    if (done(message)) return seen;
  }
}

function open(...args: Parameters<typeof openInspectorFeed> extends [unknown, ...infer Rest] ? Rest : never): InspectorFeed {
  const feed = openInspectorFeed(inspector, ...args);
  feeds.push(feed);
  return feed;
}

const isSummary = (m: Parsed) => m.event === 'update' && m.update.type === 'summary';
const entryIds = (seen: Parsed[]) =>
  seen.flatMap((m) => (m.event === 'update' && m.update.type === 'entry' ? [m.update.entry.actorId] : []));

describe('a client’s inspector feed at scale', () => {
  it('streams only the entries of the actors in view; the others’ activity brings a fresh summary', async () => {
    const feed = open({ tasks: 3, sessions: 2 }, { refreshMs: 0 });
    const [first] = await readUntil(feed, () => true);
    if (first?.event !== 'snapshot') throw new Error('no snapshot first');
    const inView = first.summary.actors.map((a) => a.id);
    expect(first.summary.actors.filter((a) => a.kind === 'task').map((a) => a.id)).toEqual(['sch_1', 'sch_2', 'sch_3']);
    expect(first.summary).toMatchObject({ taskCount: 400, sessionCount: 40 });
    expect(first.summary.sessions.map((s) => s.sessionId)).toEqual(['s1', 's2']);
    expect(JSON.stringify(first.summary).length).toBeLessThan(30_000);

    // Five deliveries: sch_1 … sch_5 move on to tomorrow.
    await clock.advance(5 * MINUTE);
    await svc.whenIdle();
    const seen = await readUntil(feed, isSummary);
    const streamed = new Set(entryIds(seen));
    expect([...streamed].every((id) => inView.includes(id))).toBe(true);
    expect(streamed.has('sch_1')).toBe(true);
    expect(streamed.has('sch_4')).toBe(false);
    // The fresh summary ranks what changed: sch_1 … sch_5 are due tomorrow now.
    const fresh = seen.at(-1);
    const summary = fresh?.event === 'update' && fresh.update.type === 'summary' ? fresh.update.summary : undefined;
    expect(summary?.actors.filter((a) => a.kind === 'task').map((a) => a.id)).toEqual(['sch_6', 'sch_7', 'sch_8']);
    expect(summary?.sessions.map((s) => s.sessionId)).toEqual(['s6', 's7']);
    expect(summary?.seq).toBeGreaterThan(first.summary.seq);
  });

  it('a new task under a Session in view joins it at once while the list has room and the filter selects it', async () => {
    const feed = open({ sessionId: 's1', tasks: 11, text: 'report' }, { refreshMs: 3_600_000 });
    const [first] = await readUntil(feed, () => true);
    expect(first?.event === 'snapshot' && first.summary.taskCount).toBe(0);
    const create = async (title: string) =>
      ((await svc.callTool('s1', 'schedule_create', { prompt: 'p', title, after_seconds: 30 })) as { id: string }).id;
    const skipped = await create('Unrelated');
    const wanted = await create('Weekly report');
    await svc.whenIdle();
    const seen = await readUntil(feed, (m) => m.event === 'update' && m.update.type === 'entry' && m.update.entry.actorId === wanted);
    expect(entryIds(seen)).not.toContain(skipped);
    const joined = seen.at(-1);
    expect(joined?.event === 'update' && joined.update.type === 'entry' ? joined.update.actor : undefined).toMatchObject({
      id: wanted,
      title: 'Weekly report',
      state: 'scheduled',
    });
  });

  it('sends at most `maxEntriesPerSecond` entries a second', async () => {
    let nowMs = 0;
    const feed = open({ tasks: 10 }, { refreshMs: 3_600_000, maxEntriesPerSecond: 5, now: () => nowMs });
    expect((await feed.next())?.event).toBe('snapshot');
    /** Delivers the tasks due within `ms`, then reads what waits for the client. */
    const deliver = async (ms: number) => {
      await clock.advance(ms);
      await svc.whenIdle();
      const seen: Parsed[] = [];
      while (feed.backlogBytes > 0) seen.push(parse(await feed.next()));
      return entryIds(seen);
    };
    // Ten deliveries of tasks in view (dozens of entries) within one second of the feed's clock.
    expect(await deliver(10 * MINUTE)).toHaveLength(5);
    // The next second brings a fresh allowance.
    nowMs = 1_000;
    expect(await deliver(MINUTE)).toHaveLength(5);
  });

  it('a client that stops reading is held to its bound and then sent a fresh snapshot', async () => {
    const feed = open({}, { limits: { maxMessages: 8, maxBytes: Number.POSITIVE_INFINITY }, refreshMs: 0 });
    expect((await feed.next())?.event).toBe('snapshot');
    await clock.advance(60 * MINUTE);
    await svc.whenIdle();
    expect((await feed.next())?.event).toBe('snapshot');
  });
});

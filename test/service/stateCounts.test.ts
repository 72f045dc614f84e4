// The counts per state the service keeps (`remote.counts`, `CatalogPage.counts`) against a
// brute-force scan of the catalog: after every step of random sequences of creates, pauses,
// resumes, deletes, runs now, bulk calls, failed and successful deliveries, failed writes and clock
// moves (both ways), the kept counts of the whole schedule and of each Session equal the counts of the
// catalog's entries at the same instant. Seeds are fixed: runs are reproducible.
import fc from 'fast-check';
import type { MemoryStorage } from '../../src/adapters/memoryStorage.ts';
import { countRows, type ScheduleCounts, type StateCounts } from '../../src/domain/reads/stateCounts.ts';
import type { CatalogEntry } from '../../src/domain/tasks/types.ts';
import { closeAll, create, type Harness, harness, MINUTE } from '../support/harness.ts';

afterEach(closeAll);

const SESSIONS = ['s0', 's1', 's2'];

type Step =
  | { kind: 'create'; session: number; timing: Record<string, unknown> }
  | { kind: 'pause' | 'resume' | 'delete' | 'trigger'; task: number }
  | { kind: 'bulk'; action: 'pause' | 'resume' | 'trigger'; session: number }
  | { kind: 'fail'; session: number; stage: 'resolve' | 'flush' }
  | { kind: 'failWrite' }
  | { kind: 'advance'; ms: number }
  | { kind: 'back'; ms: number };

const session = fc.integer({ min: 0, max: SESSIONS.length - 1 });
const task = fc.nat({ max: 50 });
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('create' as const),
      session,
      timing: fc.constantFrom<Record<string, unknown>>(
        { after_seconds: 30 },
        { after_seconds: 90 },
        { after_seconds: 600 },
        { every_seconds: 120 },
        { every_seconds: 3600 },
      ),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constantFrom('pause' as const, 'resume' as const, 'delete' as const, 'trigger' as const), task }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('bulk' as const),
      action: fc.constantFrom('pause' as const, 'resume' as const, 'trigger' as const),
      session,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('fail' as const), session, stage: fc.constantFrom('resolve' as const, 'flush' as const) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('failWrite' as const) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.constantFrom(0, 20_000, MINUTE, 5 * MINUTE) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('back' as const), ms: fc.constantFrom(10_000, 2 * MINUTE) }) },
);

async function run(h: Harness, tasks: Array<{ sessionId: string; id: string }>, s: Step): Promise<void> {
  const ref = (n: number) => tasks[n % Math.max(tasks.length, 1)] ?? { sessionId: 's0', id: 'sch_0' };
  switch (s.kind) {
    case 'create': {
      const sessionId = SESSIONS[s.session] as string;
      // A create whose write fails (an injected storage fault) is answered with a refusal.
      const view = await h.svc.callTool(sessionId, 'schedule_create', { title: 't', prompt: 'p', ...s.timing });
      if (!('code' in view)) tasks.push({ sessionId, id: view.id });
      break;
    }
    case 'pause':
    case 'resume':
    case 'trigger':
      await h.svc.remote[s.kind](ref(s.task));
      break;
    case 'delete':
      await h.svc.remote.delete(ref(s.task));
      break;
    case 'bulk':
      await h.svc.remote.bulk({ action: s.action, filter: { sessionId: SESSIONS[s.session] as string } });
      break;
    case 'fail':
      // The next three attempts of the Session fail: its due tasks stay overdue and failing a while.
      for (let i = 0; i < 3; i++) h.sessions.failNext(SESSIONS[s.session] as string, s.stage);
      break;
    case 'failWrite':
      // The next write fails: a delivery's receipt (its failure status is then not stored with the row) or a call.
      (h.storage as MemoryStorage).failNextCommit();
      break;
    case 'advance':
      await h.clock.advance(s.ms);
      break;
    case 'back':
      await h.clock.set(new Date(h.clock.now() - s.ms).toISOString());
      break;
  }
  await h.svc.whenIdle();
}

const scan = (entries: readonly CatalogEntry[], now: number): StateCounts => countRows(entries, now, (entry) => entry.failure);

async function expectCountsOfScan(h: Harness): Promise<void> {
  const entries = await h.svc.remote.catalog();
  const now = h.clock.now();
  for (const sessionId of SESSIONS) {
    const kept = (await h.svc.remote.counts({ sessionId })) as ScheduleCounts;
    expect(kept).toEqual({
      all: scan(entries, now),
      session: scan(
        entries.filter((e) => e.sessionId === sessionId),
        now,
      ),
    });
  }
  const page = await h.svc.remote.catalog({ limit: 1 });
  expect('code' in page ? page : page.counts).toEqual({ all: scan(entries, now) });
}

describe('the counts per state', () => {
  it('equal a scan of the catalog after any sequence of changes, deliveries, failures and clock moves', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 5, maxLength: 40 }), async (steps) => {
        const h = await harness({ config: { retry: { initialMs: 4 * MINUTE, maxMs: 20 * MINUTE } } });
        const tasks: Array<{ sessionId: string; id: string }> = [];
        try {
          for (const s of steps) {
            await run(h, tasks, s);
            await expectCountsOfScan(h);
          }
        } finally {
          await h.svc.close();
        }
      }),
      { seed: 3636, numRuns: 100 },
    );
  });

  it('count a clock moving past targets as overdue, without any change to the tasks', async () => {
    const h = await harness();
    for (let i = 1; i <= 5; i++) await create(h, 's0', { after_seconds: i * 60 });
    await h.svc.remote.pause({ sessionId: 's0', id: 'sch_5' });
    const counts = async () => ((await h.svc.remote.counts()) as ScheduleCounts).all;
    expect(await counts()).toEqual({ scheduled: 4, overdue: 0, paused: 1, failing: 0, ended: 0, total: 5 });
    h.sessions.failNext('s0', 'resolve');
    await h.clock.advance(MINUTE);
    await h.svc.whenIdle();
    expect(await counts()).toEqual({ scheduled: 3, overdue: 1, paused: 1, failing: 1, ended: 0, total: 5 });
  });

  it('refuses a request other than nothing or {sessionId}', async () => {
    const h = await harness();
    expect(await h.svc.remote.counts({ session: 'x' } as never)).toMatchObject({ code: 'invalid_selector' });
    expect(await h.svc.remote.counts({ sessionId: 7 } as never)).toMatchObject({ code: 'invalid_selector' });
    expect(await h.svc.remote.counts({ sessionId: 'nobody' })).toEqual({
      all: { scheduled: 0, overdue: 0, paused: 0, failing: 0, ended: 0, total: 0 },
      session: { scheduled: 0, overdue: 0, paused: 0, failing: 0, ended: 0, total: 0 },
    });
  });
});

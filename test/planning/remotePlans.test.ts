// The remote namespace's plans: every method answers (a refused request included, never a
// rejection), each request checked the same way in the same order, reads answered from the
// committed rows with the failure status the task actors hold, and changes planned as the
// single-task plans do. Archive admission reads and stops a Session's tasks.
import type { RemoteMethod } from '../../machines/replies.ts';
import { DEFAULT_RETENTION } from '../../src/domain/tasks/retention.ts';
import type { DeliveryReceipt } from '../../src/domain/tasks/types.ts';
import { catalogEntry, planRemote, planSessionActivity, type RemoteSettings } from '../../src/planning/remotePlans.ts';
import { active, ended, every, failure, oneShot, putOf, resolvedValue, type Situation, slot, T0, writeOf } from './fixtures.ts';

const SETTINGS: RemoteSettings = { retention: DEFAULT_RETENTION, tzdata: '2025b' };
const receipt = (n: number): DeliveryReceipt => ({
  scheduledAt: `2029-12-3${n}T08:00:00.000Z`,
  deliveredAt: `2029-12-3${n}T08:00:01.000Z`,
  messageId: `m-${n}`,
});
const HISTORY = { records: [receipt(0), receipt(1)], earlierRecordsUnavailable: false, earlierRecordsPruned: false };

/** s1: sch_2 running with a history, sch_10 paused, sch_3 ended; s2: sch_4 failing (its actor holds a later attempt than its row). */
const STORED: Situation = {
  rows: [
    active(every('sch_10', '2030-01-01T09:00:00.000Z'), { pausedAt: '2030-01-01T07:00:00.000Z', pauseNote: 'away' }),
    active(every('sch_2'), { lastDelivery: receipt(1), deliveryHistory: HISTORY }),
    ended(oneShot('sch_3')),
    active(every('sch_4', '2030-01-01T07:59:00.000Z'), { sessionId: 's2', failure: failure() }),
  ],
  failures: { sch_4: failure({ attempts: 2 }) },
};

const remote = (method: RemoteMethod, request?: unknown, situation: Situation = STORED) =>
  planRemote(slot(situation), method, request, SETTINGS);

describe('planRemote reads', () => {
  it('catalog without a request: every task in id order, each without its saved history', () => {
    const entries = resolvedValue(remote('catalog')) as unknown as Array<Record<string, unknown>>;
    expect(entries.map((e) => (e.record as { id: string }).id)).toEqual(['sch_2', 'sch_3', 'sch_4', 'sch_10']);
    expect(entries.every((e) => !('deliveryHistory' in e))).toBe(true);
    expect(entries[0]).toMatchObject({ sessionId: 's1', status: 'active', lastDelivery: receipt(1) });
    expect(entries[2]).toMatchObject({ failure: failure({ attempts: 2 }) });
    expect(entries[3]).toMatchObject({ pausedAt: '2030-01-01T07:00:00.000Z', pauseNote: 'away' });
  });

  it("catalog with a filter: one page of the filter's Session, with the counts", () => {
    const page = resolvedValue(remote('catalog', { filter: { sessionId: 's2' } })) as unknown as Record<string, unknown>;
    expect(page).toMatchObject({
      total: 1,
      entries: [{ sessionId: 's2', failure: failure({ attempts: 2 }) }],
      counts: { all: { total: 4, ended: 1, paused: 1, failing: 1 }, session: { total: 1, overdue: 1, failing: 1 } },
    });
  });

  it.each<[string, RemoteMethod, unknown, unknown]>([
    ["list: the Session's active tasks, soonest first", 'list', { sessionId: 's1' }, [{ id: 'sch_2' }, { id: 'sch_10', state: 'paused' }]],
    [
      'get: the catalog entry with the failure its actor holds',
      'get',
      { sessionId: 's2', id: 'sch_4' },
      { record: { id: 'sch_4' }, failure: failure({ attempts: 2 }) },
    ],
    ['get: an ended task too', 'get', { sessionId: 's1', id: 'sch_3' }, { status: 'inactive' }],
    [
      'history: newest first, a page at a time',
      'history',
      { sessionId: 's1', id: 'sch_2', limit: 1 },
      { records: [receipt(1)], nextBefore: 'm-1', retention: { days: 30, records: 200 } },
    ],
    ['history: before a message id', 'history', { sessionId: 's1', id: 'sch_2', limit: 5, before: 'm-1' }, { records: [receipt(0)] }],
    [
      'counts of one Session',
      'counts',
      { sessionId: 's1' },
      { all: { total: 4 }, session: { scheduled: 1, paused: 1, ended: 1, total: 3 } },
    ],
  ])('%s', (_title, method, request, reply) => {
    const plan = remote(method, request);
    expect(plan.kind).toBe('read');
    expect(resolvedValue(plan)).toMatchObject(reply as object);
  });
});

describe('planRemote changes', () => {
  it.each<[string, RemoteMethod, Record<string, unknown>, string, Record<string, unknown>]>([
    ['update against the current record', 'update', { id: 'sch_2', expected: every('sch_2'), title: 'Water' }, 'sch_2', { title: 'Water' }],
    [
      'update pausing with a note',
      'update',
      { id: 'sch_2', expected: every('sch_2'), paused: true, pauseNote: 'dry spell' },
      'sch_2',
      { pauseNote: 'dry spell' },
    ],
    ['pause with a note', 'pause', { id: 'sch_2', note: ' holiday ' }, 'sch_2', { pausedAt: T0, pauseNote: 'holiday' }],
    ['resume', 'resume', { id: 'sch_10' }, 'sch_10', { pausedAt: undefined, pauseNote: undefined }],
    ['trigger', 'trigger', { id: 'sch_2' }, 'sch_2', { triggeredAt: T0 }],
  ])('%s writes the row', (_title, method, request, id, written) => {
    const row = putOf(writeOf(remote(method, { sessionId: 's1', ...request })), id);
    const seen = { ...row, ...row.record };
    for (const [key, value] of Object.entries(written)) expect(seen[key as keyof typeof seen]).toEqual(value);
  });

  it('delete deletes the task', () => {
    const plan = writeOf(remote('delete', { sessionId: 's1', id: 'sch_3' }));
    expect(plan.batch.deletes).toEqual(['sch_3']);
    expect(resolvedValue(plan)).toEqual({ id: 'sch_3', deleted: true });
  });
});

describe('planRemote refusals are answered', () => {
  it.each<[string, RemoteMethod, unknown, string]>([
    ['a request that is not an object', 'get', 'sch_2', 'invalid_selector'],
    ['an unknown member', 'list', { sessionId: 's1', limit: 5 }, 'invalid_selector'],
    ['a missing sessionId', 'get', { id: 'sch_2' }, 'invalid_selector'],
    ['an id that is not a string', 'get', { sessionId: 's1', id: 2 }, 'schedule_not_found'],
    ["another Session's task", 'get', { sessionId: 's1', id: 'sch_4' }, 'schedule_not_found'],
    [
      'a stale compare-and-set record',
      'update',
      { sessionId: 's1', id: 'sch_2', expected: every('sch_2', T0), title: 'x' },
      'schedule_conflict',
    ],
    ['an update without its expected record', 'update', { sessionId: 's1', id: 'sch_2', title: 'x' }, 'invalid_selector'],
    ['an update of an ended task', 'update', { sessionId: 's1', id: 'sch_3', expected: oneShot('sch_3'), title: 'x' }, 'schedule_ended'],
    ['a blank pause note', 'pause', { sessionId: 's1', id: 'sch_2', note: '  ' }, 'invalid_selector'],
    ['a pause of an ended task', 'pause', { sessionId: 's1', id: 'sch_3' }, 'schedule_ended'],
    ['a history page too large', 'history', { sessionId: 's1', id: 'sch_2', limit: 101 }, 'invalid_rule'],
    [
      'a history cursor that names no message',
      'history',
      { sessionId: 's1', id: 'sch_2', limit: 5, before: 'm-9' },
      'delivery_cursor_not_found',
    ],
    ['a catalog page too large', 'catalog', { limit: 10_000 }, 'invalid_rule'],
    ['a bulk call with an unknown action', 'bulk', { action: 'stop', tasks: [] }, 'invalid_selector'],
  ])('%s: %s', (_title, method, request, code) => {
    const plan = remote(method, request);
    expect(plan.kind).toBe('read');
    expect(resolvedValue(plan)).toEqual({ code, message: expect.any(String) });
  });

  it('a call naming no task id says so, under schedule_not_found', () => {
    expect(resolvedValue(remote('history', { sessionId: 's1' }))).toEqual({
      code: 'schedule_not_found',
      message: "remote.history names no task: id is the task's id as a string, not nothing.",
    });
    expect(resolvedValue(remote('get', { sessionId: 's1', id: 'sch_404' }))).toEqual({
      code: 'schedule_not_found',
      message: 'No task "sch_404" is stored for this Session.',
    });
  });

  it.each([
    ['an unknown id', { sessionId: 's1', id: 'sch_404' }, { id: 'sch_404', deleted: false, code: 'schedule_not_found' }],
    ['an id too long to echo', { sessionId: 's1', id: 'x'.repeat(500) }, { deleted: false, code: 'schedule_not_found' }],
    ['a request that is not an object', 42, { deleted: false, code: 'invalid_selector' }],
  ])('delete answers %s as not deleted', (_title, request, reply) => {
    expect(resolvedValue(remote('delete', request))).toEqual({ ...reply, message: expect.any(String) });
  });

  it('an unexpected failure answers internal_error and is logged with its cause', () => {
    const broken = new TypeError('the failure index is broken');
    const ctx = {
      ...slot(STORED),
      failureOf: () => {
        throw broken;
      },
    };
    const plan = planRemote(ctx, 'get', { sessionId: 's1', id: 'sch_2' }, SETTINGS);
    expect(resolvedValue(plan)).toMatchObject({ code: 'internal_error' });
    expect(plan.kind === 'read' ? plan.errors : []).toEqual([
      { message: 'A schedule operation failed unexpectedly.', data: { operation: 'remote', method: 'get', cause: broken } },
    ]);
  });
});

describe('catalogEntry and planSessionActivity', () => {
  it('an entry carries the stored failure unless the actor says otherwise', () => {
    const row = active(every('sch_1'), { failure: failure(), deliveryHistory: HISTORY });
    expect(catalogEntry(row)).toEqual({ sessionId: 's1', status: 'active', record: every('sch_1'), failure: failure() });
    expect(catalogEntry(row, failure({ attempts: 3 })).failure?.attempts).toBe(3);
  });

  it.each([
    [
      'a Session with active tasks lists them in id order as the schedule family',
      's1',
      [
        {
          family: 'schedule',
          items: [
            { id: 'sch_2', label: 'every sch_2' },
            { id: 'sch_10', label: 'every sch_10' },
          ],
        },
      ],
    ],
    ['a Session without active tasks has no activity', 's9', []],
  ])('%s', (_title, sessionId, activity) => {
    expect(resolvedValue(planSessionActivity(slot(STORED), sessionId))).toEqual(activity);
  });
});

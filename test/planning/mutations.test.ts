// The plans of the changes both the model tools and the remote namespace make: create, update (with
// its compare-and-set), pause, resume, run now, delete and the archive's Session stop — each row of
// a table a stored situation, the call, and the plan it must produce.
import { ScheduleError } from '../../src/domain/errors.ts';
import {
  activeViews,
  compareTaskIds,
  persistenceFailure,
  planCreate,
  planDelete,
  planPause,
  planResume,
  planSessionStop,
  planTrigger,
  planUpdate,
  type UpdateEdits,
} from '../../src/planning/mutations.ts';
import {
  active,
  answerOf,
  at,
  dailyParis,
  type Expected,
  ended,
  every,
  expectMembers,
  failure,
  oneShot,
  putIds,
  putOf,
  refusalCode,
  resolvedValue,
  type Situation,
  slot,
  T0,
  writeOf,
} from './fixtures.ts';

describe('planCreate', () => {
  it.each([
    ['after_seconds 60', { after_seconds: 60 }, T0, 'after', '2030-01-01T08:01:00.000Z'],
    ['every_seconds 900 (the grid starts one interval after now)', { every_seconds: 900 }, T0, 'every', '2030-01-01T08:15:00.000Z'],
    [
      'daily 02:30 in America/New_York skips the 2030-03-10 gap',
      { daily: { time: '02:30:00', time_zone: 'America/New_York' } },
      '2030-03-10T05:00:00.000Z',
      'daily',
      '2030-03-11T06:30:00.000Z',
    ],
    [
      'daily 01:30 in America/New_York fires once, at the earlier 2030-11-03 instant',
      { daily: { time: '01:30:00', time_zone: 'America/New_York' } },
      '2030-11-03T04:00:00.000Z',
      'daily',
      '2030-11-03T05:30:00.000Z',
    ],
    [
      'cron 0 9 * * 1 in UTC on a Tuesday: the next Monday',
      { cron: { expression: '0 9 * * 1', time_zone: 'UTC' } },
      T0,
      'cron',
      '2030-01-07T09:00:00.000Z',
    ],
    ['at an instant ahead', { at: '2030-06-01T12:00:00Z' }, T0, 'at', '2030-06-01T12:00:00.000Z'],
  ])('%s: writes the new active row under the id the slot gives it', (_title, selector, now, kind, scheduledAt) => {
    const created = planCreate(slot({ now }), 's1', { title: 'Stretch', prompt: 'Stand up', ...selector });
    expect(created.kind).toBe('create');
    const plan = created.withId('sch_7');
    const row = putOf(plan, 'sch_7');
    expect(row).toMatchObject({ sessionId: 's1', status: 'active', record: { id: 'sch_7', kind, title: 'Stretch', scheduledAt } });
    expect(row.deliveryHistory).toEqual({ records: [], earlierRecordsUnavailable: false, earlierRecordsPruned: false });
    expect(plan.batch).toEqual({ puts: [row], deletes: [] });
    expect(resolvedValue(plan)).toMatchObject({ id: 'sch_7', scheduledAt, state: 'scheduled', deliveryMode: 'host' });
    expect(plan.effects).toEqual([{ type: 'tasks.spawn', rows: [row] }]);
    expect(plan.changes).toEqual([{ sessionId: 's1', ids: ['sch_7'] }]);
  });

  it.each([
    ['an instant already past', { at: '2029-12-31T23:00:00Z' }, 'not_future'],
    ['no timing selector', {}, 'invalid_selector'],
    ['two timing selectors', { after_seconds: 60, every_seconds: 60 }, 'invalid_selector'],
    ['a misspelt selector', { after_second: 60 }, 'invalid_selector'],
    ['an unknown zone', { daily: { time: '09:00:00', time_zone: 'Mars/Olympus' } }, 'invalid_time_zone'],
    ['a time of day out of range', { daily: { time: '25:00:00', time_zone: 'UTC' } }, 'invalid_rule'],
    ['a blank prompt', { after_seconds: 60, prompt: '  ' }, 'invalid_prompt'],
  ])('refuses %s with %s', (_title, args, code) => {
    expect(refusalCode(() => planCreate(slot(), 's1', { title: 't', prompt: 'p', ...args }))).toBe(code);
  });

  it('a write that fails answers persistence_uncertain and tells no actor', () => {
    const plan = planCreate(slot(), 's1', { title: 't', prompt: 'p', after_seconds: 60 }).withId('sch_1');
    const failed = plan.onWriteFailure(new ScheduleError('persistence_uncertain', 'disk gone'));
    expect(failed.effects).toEqual([]);
    expect(answerOf(failed.reply)).toEqual(persistenceFailure(new ScheduleError('persistence_uncertain', 'disk gone')));
    expect(answerOf(failed.reply)).toMatchObject({
      code: 'persistence_uncertain',
      message: expect.stringMatching(/could not be confirmed as saved.* disk gone$/),
    });
  });
});

/** s1 runs sch_1 (every minute) and sch_4 (paused, its target passed), sch_2 has ended; sch_3 belongs to s2. */
const STORED: Situation = {
  rows: [
    active(every('sch_1')),
    ended(oneShot('sch_2')),
    active(every('sch_3'), { sessionId: 's2' }),
    active(every('sch_4', '2030-01-01T07:30:00.000Z'), { pausedAt: '2030-01-01T07:00:00.000Z', pauseNote: 'on leave' }),
  ],
};

describe('planUpdate', () => {
  it.each<[string, string, UpdateEdits, Expected]>([
    ['a new title keeps the target', 'sch_1', { title: 'Water' }, { record: { ...every('sch_1'), title: 'Water' } }],
    [
      'a change to an instant re-targets it as an at task',
      'sch_1',
      { change: { kind: 'at', at: '2030-01-01T09:00:00Z' } },
      { record: { id: 'sch_1', kind: 'at', title: 'every sch_1', prompt: 'p', scheduledAt: '2030-01-01T09:00:00.000Z' } },
    ],
    [
      'a change to a daily time takes its first target after now',
      'sch_1',
      { change: { kind: 'daily', time: '07:00:00', time_zone: 'UTC' } },
      {
        record: {
          id: 'sch_1',
          kind: 'daily',
          title: 'every sch_1',
          prompt: 'p',
          scheduledAt: '2030-01-02T07:00:00.000Z',
          time: '07:00:00',
          timeZone: 'UTC',
        },
      },
    ],
    ['paused with a note', 'sch_1', { paused: true, pauseNote: 'travelling' }, { pausedAt: T0, pauseNote: 'travelling' }],
    [
      'resumed after its target passed: the next grid point after now, the note gone',
      'sch_4',
      { paused: false },
      { record: every('sch_4', '2030-01-01T08:01:00.000Z'), pausedAt: undefined, pauseNote: undefined },
    ],
  ])('%s', (_title, id, edits, written) => {
    const plan = writeOf(planUpdate(slot(STORED), 's1', id, edits));
    const row = putOf(plan, id);
    expect(row).toMatchObject({ sessionId: 's1', status: 'active' });
    expectMembers(row, written);
    expect(plan.effects).toEqual([{ type: 'task.updated', row, now: at(T0) }]);
    expect(plan.changes).toEqual([{ sessionId: 's1', ids: [id] }]);
    expect(resolvedValue(plan)).toMatchObject({ id, scheduledAt: row.record.scheduledAt });
  });

  it.each<[string, UpdateEdits]>([
    ['the same title', { title: 'every sch_1' }],
    ['a change to the rule it already has', { change: { kind: 'every', every_seconds: 60 } }],
    ['resuming a running task', { paused: false }],
    ['no edit at all', {}],
  ])('%s writes nothing and answers the stored view', (_title, edits) => {
    const plan = planUpdate(slot(STORED), 's1', 'sch_1', edits);
    expect(plan.kind).toBe('read');
    expect(plan.effects).toEqual([]);
    expect(resolvedValue(plan)).toMatchObject({ id: 'sch_1', scheduledAt: '2030-01-01T08:01:00.000Z', state: 'scheduled' });
  });

  it.each<[string, unknown, UpdateEdits, unknown, string]>([
    ["another Session's task", 'sch_3', { title: 'x' }, undefined, 'schedule_not_found'],
    ['an id that names no task', 'sch_99', { title: 'x' }, undefined, 'schedule_not_found'],
    ['an id that is not a string', 1, { title: 'x' }, undefined, 'schedule_not_found'],
    ['an ended task', 'sch_2', { title: 'x' }, undefined, 'schedule_ended'],
    ['a stale compare-and-set record (its target moved since)', 'sch_1', { title: 'x' }, every('sch_1', T0), 'schedule_conflict'],
    ['a compare-and-set record with a member more', 'sch_1', { title: 'x' }, { ...every('sch_1'), extra: 1 }, 'schedule_conflict'],
    ['paused as a string', 'sch_1', { paused: 'yes' }, undefined, 'invalid_selector'],
    ['a pause note without pausing', 'sch_1', { pauseNote: 'why' }, undefined, 'invalid_selector'],
    ['a blank pause note', 'sch_1', { paused: true, pauseNote: ' ' }, undefined, 'invalid_selector'],
    ['a change to a passed instant', 'sch_1', { change: { kind: 'at', at: '2029-01-01T00:00:00Z' } }, undefined, 'not_future'],
    ['a change by a delay', 'sch_1', { change: { kind: 'after', after_seconds: 60 } }, undefined, 'invalid_selector'],
  ])('refuses %s with %s', (_title, id, edits, expected, code) => {
    expect(refusalCode(() => planUpdate(slot(STORED), 's1', id, edits, expected))).toBe(code);
  });

  it('a compare-and-set record equal to the stored one, in another key order, writes the edit', () => {
    const { prompt, ...rest } = every('sch_1');
    const plan = planUpdate(slot(STORED), 's1', 'sch_1', { title: 'Water' }, { prompt, ...rest });
    expect(putOf(plan, 'sch_1').record.title).toBe('Water');
  });
});

describe('planPause, planResume and planTrigger', () => {
  const later = '2030-01-01T08:30:00.000Z';
  it.each([
    ['pausing a running task records the instant', () => planPause(slot(STORED), 's1', 'sch_1'), { pausedAt: T0 }],
    ['pausing with a note keeps the note', () => planPause(slot(STORED), 's1', 'sch_1', 'ill'), { pausedAt: T0, pauseNote: 'ill' }],
    [
      'pausing a paused task with another note replaces the note, not the instant',
      () => planPause(slot({ ...STORED, now: later }), 's1', 'sch_4', 'back soon'),
      { pausedAt: '2030-01-01T07:00:00.000Z', pauseNote: 'back soon' },
    ],
    [
      'resuming before the target keeps it',
      () =>
        planResume(
          slot({ rows: [active(every('sch_5', '2030-01-01T09:00:00.000Z'), { pausedAt: '2030-01-01T07:00:00.000Z' })] }),
          's1',
          'sch_5',
        ),
      { pausedAt: undefined, record: every('sch_5', '2030-01-01T09:00:00.000Z') },
    ],
    [
      'resuming a one-shot whose target passed keeps the target (it is delivered at once)',
      () =>
        planResume(
          slot({ rows: [active(oneShot('sch_5', '2030-01-01T07:30:00.000Z'), { pausedAt: '2030-01-01T07:00:00.000Z' })] }),
          's1',
          'sch_5',
        ),
      { pausedAt: undefined, record: oneShot('sch_5', '2030-01-01T07:30:00.000Z') },
    ],
    [
      'resuming a daily task in Paris after a missed week: the next 09:00 there',
      () =>
        planResume(
          slot({ rows: [active(dailyParis('sch_5'), { pausedAt: '2030-01-01T12:00:00.000Z' })], now: '2030-01-08T10:00:00.000Z' }),
          's1',
          'sch_5',
        ),
      { pausedAt: undefined, record: dailyParis('sch_5', '2030-01-09T08:00:00.000Z') },
    ],
    ['running a task now records the request', () => planTrigger(slot(STORED), 's1', 'sch_1'), { triggeredAt: T0 }],
    [
      'running a paused task now records the request and keeps the pause',
      () => planTrigger(slot(STORED), 's1', 'sch_4'),
      { triggeredAt: T0, pausedAt: '2030-01-01T07:00:00.000Z' },
    ],
  ])('%s', (_title, plan, written) => {
    const p = plan();
    const [id] = putIds(p);
    const row = putOf(p, id as string);
    expectMembers(row, written);
    expect(p.effects).toEqual([{ type: 'task.updated', row, now: expect.any(Number) }]);
  });

  it.each([
    ['pausing a paused task with its own note', () => planPause(slot(STORED), 's1', 'sch_4', 'on leave')],
    ['pausing a paused task without a note', () => planPause(slot(STORED), 's1', 'sch_4')],
    ['resuming a running task', () => planResume(slot(STORED), 's1', 'sch_1')],
  ])('%s writes nothing', (_title, plan) => {
    const p = plan();
    expect(p.kind).toBe('read');
    expect(p.effects).toEqual([]);
  });

  it('running now a task whose request already waits writes nothing and retries that delivery at once', () => {
    const row = active(every('sch_1'), { triggeredAt: '2030-01-01T07:59:00.000Z' });
    const plan = planTrigger(slot({ rows: [row], failures: { sch_1: failure() } }), 's1', 'sch_1');
    expect(plan.kind).toBe('read');
    expect(plan.retryNow).toEqual(['sch_1']);
    expect(plan.effects).toEqual([{ type: 'tasks.retry', sessionId: 's1', ids: ['sch_1'], now: at(T0) }]);
    expect(resolvedValue(plan)).toMatchObject({ id: 'sch_1', failure: failure() });
  });

  it.each([
    ['pause', planPause],
    ['resume', planResume],
    ['trigger', planTrigger],
  ] as const)('%s refuses an ended task, and a task of another Session', (_title, plan) => {
    expect(refusalCode(() => plan(slot(STORED), 's1', 'sch_2'))).toBe('schedule_ended');
    expect(refusalCode(() => plan(slot(STORED), 's1', 'sch_3'))).toBe('schedule_not_found');
  });
});

describe('planDelete', () => {
  it.each([
    [
      "the Session's last active task: its Session retires",
      { rows: [active(every('sch_1'))] },
      'sch_1',
      [{ type: 'tasks.remove', sessionId: 's1', ids: ['sch_1'], retire: true }],
    ],
    [
      'the last active task while an attempt is in flight: the Session stays',
      { rows: [active(every('sch_1'))], attempting: ['s1'] },
      'sch_1',
      [{ type: 'tasks.remove', sessionId: 's1', ids: ['sch_1'], retire: false }],
    ],
    ['one of two active tasks', STORED, 'sch_1', [{ type: 'tasks.remove', sessionId: 's1', ids: ['sch_1'], retire: false }]],
    ['an ended task: no actor to tell', STORED, 'sch_2', []],
  ])('%s', (_title, situation: Situation, id, effects) => {
    const plan = writeOf(planDelete(slot(situation), 's1', id));
    expect(resolvedValue(plan)).toEqual({ id, deleted: true });
    expect(plan.batch).toEqual({ puts: [], deletes: [id] });
    expect(plan.effects).toEqual(effects);
    expect(plan.changes).toEqual([{ sessionId: 's1', ids: [id] }]);
  });

  it.each([
    ['an unknown id', 'sch_99', { id: 'sch_99', deleted: false, code: 'schedule_not_found' }],
    ["another Session's task", 'sch_3', { id: 'sch_3', deleted: false, code: 'schedule_not_found' }],
    ['an id that is not a string', 7, { deleted: false, code: 'schedule_not_found' }],
    ['an id too long to echo', 'x'.repeat(500), { deleted: false, code: 'schedule_not_found' }],
  ])('answers %s as not deleted, writing nothing', (_title, id, reply) => {
    const plan = planDelete(slot(STORED), 's1', id);
    expect(resolvedValue(plan)).toEqual(reply);
    expect(plan.kind).toBe('read');
  });

  it('a write that fails answers not deleted, persistence_uncertain', () => {
    const failed = writeOf(planDelete(slot(STORED), 's1', 'sch_1')).onWriteFailure(new Error('gone'));
    expect(answerOf(failed.reply)).toEqual({ id: 'sch_1', deleted: false, ...persistenceFailure(new Error('gone')) });
    expect(failed.effects).toEqual([]);
  });
});

describe('planSessionStop', () => {
  it.each([
    ['every active task of the Session in one write; it retires', STORED, [], ['sch_1', 'sch_4'], true],
    ['with an attempt in flight the Session stays', STORED, ['s1'], ['sch_1', 'sch_4'], false],
  ])('%s', (_title, situation, attempting, ids, retire) => {
    const plan = writeOf(planSessionStop(slot({ ...situation, attempting }), 's1'));
    expect(plan.batch).toEqual({ puts: [], deletes: ids });
    expect(plan.effects).toEqual([{ type: 'tasks.remove', sessionId: 's1', ids, retire }]);
    expect(plan.changes).toEqual([{ sessionId: 's1', ids }]);
  });

  it('a Session without active tasks writes nothing', () => {
    const plan = planSessionStop(slot(STORED), 's9');
    expect(plan.kind).toBe('read');
    expect(plan.effects).toEqual([]);
    expect(resolvedValue(plan)).toBeUndefined();
  });

  it('a write that fails rejects with persistence_uncertain', () => {
    const failed = writeOf(planSessionStop(slot(STORED), 's1')).onWriteFailure(new Error('gone'));
    expect(failed.reply).toMatchObject({ ok: false, error: { code: 'persistence_uncertain' }, thrown: { code: 'persistence_uncertain' } });
    expect(failed.effects).toEqual([]);
  });
});

describe('activeViews', () => {
  it("a Session's active tasks soonest first (sch_2 before sch_10 on a tie), paused and failing ones as their actors hold them", () => {
    const rows = [
      active(every('sch_10', '2030-01-01T08:05:00.000Z')),
      active(every('sch_2', '2030-01-01T08:05:00.000Z')),
      active(oneShot('sch_3', '2030-01-01T07:00:00.000Z'), { pausedAt: '2030-01-01T06:00:00.000Z' }),
      active(every('sch_4', '2030-01-01T07:59:00.000Z')),
      ended(oneShot('sch_5', '2030-01-01T07:00:00.000Z')),
      active(every('sch_6'), { sessionId: 's2' }),
    ];
    const views = activeViews(slot({ rows, failures: { sch_4: failure() } }), 's1');
    expect(views.map((v) => [v.id, v.state])).toEqual([
      ['sch_3', 'paused'],
      ['sch_4', 'overdue'],
      ['sch_2', 'scheduled'],
      ['sch_10', 'scheduled'],
    ]);
    expect(views[1]?.failure).toEqual(failure());
  });
});

describe('compareTaskIds', () => {
  it.each([
    ['sch_2', 'sch_10', -1],
    ['sch_10', 'sch_2', 1],
    ['sch_7', 'sch_7', 0],
    ['sch_99', 'imported', -1],
    ['imported', 'sch_1', 1],
    ['a', 'b', -1],
  ])('%s against %s', (a, b, sign) => {
    expect(Math.sign(compareTaskIds(a, b))).toBe(sign);
  });
});

// Time-zone data drift plans: `remote.drift` reports the wall-clock targets the rule no longer
// yields, and `remote.reanchor` moves them to the rule's first occurrence strictly after now — one
// task, a list, or every task (of a Session) — in one write, leaving the others alone.
import { planDrift, planReanchor } from '../../src/planning/driftPlans.ts';
import {
  active,
  answerOf,
  dailyParis,
  ended,
  every,
  putIds,
  putOf,
  refusalCode,
  resolvedValue,
  type Situation,
  slot,
  writeOf,
} from './fixtures.ts';

/** 09:00 in Paris is 08:00Z in winter: sch_1 and sch_4 sit at 09:30 (drifted), sch_2 on its rule. */
const DRIFTED = '2030-01-02T08:30:00.000Z';
const STORED: Situation = {
  tzdata: '2024a',
  rows: [
    active(dailyParis('sch_1', DRIFTED)),
    active(dailyParis('sch_2')),
    ended(dailyParis('sch_3', DRIFTED)),
    active(dailyParis('sch_4', DRIFTED), { sessionId: 's2' }),
    active(every('sch_5', '2030-01-01T08:00:30.000Z')),
  ],
};
const NEXT_NINE = '2030-01-02T08:00:00.000Z';

describe('planDrift', () => {
  it("reports every active drifted wall-clock task, with the data version in use and the domain's", () => {
    const report = resolvedValue(planDrift(slot(STORED), undefined, '2025b'));
    expect(report).toMatchObject({ tzdata: '2025b', writtenWith: '2024a' });
    expect(report.tasks.map((t) => [t.sessionId, t.id, t.scheduledAt, t.local, t.occurrence])).toEqual([
      ['s1', 'sch_1', DRIFTED, '2030-01-02T09:30:00+01:00', NEXT_NINE],
      ['s2', 'sch_4', DRIFTED, '2030-01-02T09:30:00+01:00', NEXT_NINE],
    ]);
  });

  it('a domain that never recorded a version reports only the one in use', () => {
    const report = resolvedValue(planDrift(slot({ rows: [] }), undefined, '2025b'));
    expect(report).toEqual({ tzdata: '2025b', tasks: [] });
  });

  it('with a limit: the first drifted tasks and how many there are', () => {
    const page = resolvedValue(planDrift(slot(STORED), { limit: 1 }, '2025b'));
    expect(page).toMatchObject({ total: 2, tasks: [{ id: 'sch_1' }] });
  });

  it.each([
    [{ limit: 0 }, 'invalid_rule'],
    [{ limit: 501 }, 'invalid_rule'],
    [{ limit: 1.5 }, 'invalid_rule'],
    [{ count: 1 }, 'invalid_selector'],
    ['all', 'invalid_selector'],
  ])('refuses the request %j with %s', (request, code) => {
    expect(refusalCode(() => planDrift(slot(STORED), request, '2025b'))).toBe(code);
  });
});

describe('planReanchor', () => {
  it.each<[string, unknown, readonly string[], ReadonlyArray<{ sessionId: string; ids: string[] }>]>([
    ['one task', { sessionId: 's1', id: 'sch_1' }, ['sch_1'], [{ sessionId: 's1', ids: ['sch_1'] }]],
    [
      'a list, each task once, the undrifted left alone',
      { sessionId: 's1', ids: ['sch_1', 'sch_1', 'sch_2'] },
      ['sch_1'],
      [{ sessionId: 's1', ids: ['sch_1'] }],
    ],
    [
      'every task, each Session told once',
      { all: true },
      ['sch_1', 'sch_4'],
      [
        { sessionId: 's1', ids: ['sch_1'] },
        { sessionId: 's2', ids: ['sch_4'] },
      ],
    ],
    ['every task of one Session', { all: true, sessionId: 's2' }, ['sch_4'], [{ sessionId: 's2', ids: ['sch_4'] }]],
  ])('%s: moved to the first occurrence after now, in one write', (_title, request, moved, changes) => {
    const plan = writeOf(planReanchor(slot(STORED), request));
    expect(putIds(plan)).toEqual(moved);
    for (const id of moved) expect(putOf(plan, id).record.scheduledAt).toBe(NEXT_NINE);
    expect(plan.changes).toEqual(changes);
    expect(plan.effects).toEqual(
      plan.batch.puts.map((row) => ({ type: 'task.updated', row, now: Date.parse('2030-01-01T08:00:00.000Z') })),
    );
  });

  it('one task answers its moved view; the bulk forms answer the moved views', () => {
    expect(resolvedValue(planReanchor(slot(STORED), { sessionId: 's1', id: 'sch_1' }))).toMatchObject({
      id: 'sch_1',
      scheduledAt: NEXT_NINE,
    });
    const bulk = resolvedValue(planReanchor(slot(STORED), { all: true })) as { reanchored: Array<{ id: string }> };
    expect(bulk.reanchored.map((v) => v.id)).toEqual(['sch_1', 'sch_4']);
  });

  it.each([
    ['a task on its rule', { sessionId: 's1', id: 'sch_2' }, { id: 'sch_2', scheduledAt: NEXT_NINE }],
    ['a task without a wall-clock rule', { sessionId: 's1', id: 'sch_5' }, { id: 'sch_5' }],
    ['a list with nothing drifted', { sessionId: 's1', ids: ['sch_2'] }, { reanchored: [] }],
  ])('%s is left alone and nothing is written', (_title, request, reply) => {
    const plan = planReanchor(slot(STORED), request);
    expect(plan.kind).toBe('read');
    expect(resolvedValue(plan)).toMatchObject(reply);
  });

  it('a write that fails answers persistence_uncertain with the cause', () => {
    const failed = writeOf(planReanchor(slot(STORED), { all: true })).onWriteFailure(new Error('disk full'));
    expect(answerOf(failed.reply)).toEqual({
      code: 'persistence_uncertain',
      message: 'The re-anchored targets could not be saved: disk full',
    });
    expect(failed.effects).toEqual([]);
  });

  it.each([
    ['an id and all', { sessionId: 's1', id: 'sch_1', all: true }, 'invalid_selector'],
    ['none of id, ids or all', { sessionId: 's1' }, 'invalid_selector'],
    ['all: false', { all: false }, 'invalid_selector'],
    ['a sessionId that is not a string', { all: true, sessionId: 1 }, 'invalid_selector'],
    ['an id without its Session', { id: 'sch_1' }, 'invalid_selector'],
    ['ids that are not a list', { sessionId: 's1', ids: 'sch_1' }, 'invalid_selector'],
    ['an unknown member', { sessionId: 's1', id: 'sch_1', force: true }, 'invalid_selector'],
    ['not an object', null, 'invalid_selector'],
    ["another Session's task", { sessionId: 's1', id: 'sch_4' }, 'schedule_not_found'],
    ['a list naming an unknown task', { sessionId: 's1', ids: ['sch_1', 'sch_404'] }, 'schedule_not_found'],
    ['an ended task', { sessionId: 's1', id: 'sch_3' }, 'schedule_ended'],
  ])('refuses %s', (_title, request, code) => {
    expect(refusalCode(() => planReanchor(slot(STORED), request))).toBe(code);
  });
});

// The model tools' plans: each tool's arguments checked (unknown members refused by name), each
// call bound to the calling Session, and the plan the tool hands its slot.
import { planToolCall } from '../../src/planning/toolPlans.ts';
import { active, ended, every, oneShot, putOf, refusalCode, resolvedValue, slot, writeOf } from './fixtures.ts';

const STORED = slot({
  rows: [
    active(every('sch_1', '2030-01-01T09:00:00.000Z')),
    active(oneShot('sch_2', '2030-01-01T08:30:00.000Z')),
    ended(oneShot('sch_3')),
    active(every('sch_4'), { sessionId: 's2' }),
  ],
});

describe('planToolCall', () => {
  it('schedule_create plans a create under the id the slot gives it', () => {
    const plan = planToolCall(STORED, 's1', 'schedule_create', { title: 'Tea', prompt: 'Brew it', after_seconds: 300 });
    if (plan.kind !== 'create') throw new Error('schedule_create plans a create');
    const row = putOf(plan.withId('sch_9'), 'sch_9');
    expect(row).toMatchObject({ sessionId: 's1', record: { kind: 'after', title: 'Tea', scheduledAt: '2030-01-01T08:05:00.000Z' } });
  });

  it.each([
    ['no arguments', undefined],
    ['null', null],
    ['an empty object', {}],
  ])("schedule_list with %s answers the Session's active tasks, soonest first", (_title, args) => {
    const plan = planToolCall(STORED, 's1', 'schedule_list', args);
    expect(plan.kind).toBe('read');
    expect((resolvedValue(plan) as Array<{ id: string }>).map((v) => v.id)).toEqual(['sch_2', 'sch_1']);
  });

  it.each([
    ['schedule_update', { id: 'sch_1', title: 'Stretch' }, 'sch_1', { title: 'Stretch' }],
    ['schedule_update', { id: 'sch_1', paused: true }, 'sch_1', { pausedAt: '2030-01-01T08:00:00.000Z' }],
    [
      'schedule_update',
      { id: 'sch_2', change: { kind: 'at', at: '2030-01-02T08:00:00Z' } },
      'sch_2',
      { scheduledAt: '2030-01-02T08:00:00.000Z' },
    ],
  ])('%s %j writes the edited row', (name, args, id, written) => {
    const row = putOf(writeOf(planToolCall(STORED, 's1', name, args)), id);
    expect({ ...row, ...row.record }).toMatchObject(written);
  });

  it('schedule_delete deletes the task of the calling Session', () => {
    const plan = writeOf(planToolCall(STORED, 's1', 'schedule_delete', { id: 'sch_2' }));
    expect(plan.batch).toEqual({ puts: [], deletes: ['sch_2'] });
    expect(resolvedValue(plan)).toEqual({ id: 'sch_2', deleted: true });
  });

  it.each([
    ['schedule_delete', { id: 'sch_4' }, { id: 'sch_4', deleted: false, code: 'schedule_not_found' }],
    ['schedule_delete', { id: 'sch_404' }, { id: 'sch_404', deleted: false, code: 'schedule_not_found' }],
  ])("%s %j answers not deleted (another Session's task is not reached)", (name, args, reply) => {
    const plan = planToolCall(STORED, 's1', name, args);
    expect(plan.kind).toBe('read');
    expect(resolvedValue(plan)).toEqual(reply);
  });

  it.each([
    ['schedule_list', { sessionId: 's2' }, 'invalid_selector'],
    ['schedule_list', 'all', 'invalid_selector'],
    ['schedule_update', { title: 'x' }, 'invalid_selector'],
    ['schedule_update', { id: '', title: 'x' }, 'invalid_selector'],
    ['schedule_update', { id: 'sch_1', expected: {} }, 'invalid_selector'],
    ['schedule_update', { id: 'sch_1', paused: true, pauseNote: 'why' }, 'invalid_selector'],
    ['schedule_update', { id: 'sch_4', title: 'x' }, 'schedule_not_found'],
    ['schedule_update', { id: 'sch_3', title: 'x' }, 'schedule_ended'],
    ['schedule_update', [], 'invalid_selector'],
    ['schedule_delete', { id: 'sch_1', force: true }, 'invalid_selector'],
    ['schedule_delete', {}, 'invalid_selector'],
    ['schedule_create', { title: 't', prompt: 'p' }, 'invalid_selector'],
    ['schedule_run', {}, 'unknown_tool'],
  ])('%s %j is refused with %s', (name, args, code) => {
    expect(refusalCode(() => planToolCall(STORED, 's1', name, args))).toBe(code);
  });
});

// The legacy session-local log (docs/storage.md): the strict decoder, the fold to active reminders (with
// a fork's seedLength), and the warning asking to recreate active reminders with schedule_create.
import { ScheduleError } from '../../src/domain/errors.ts';
import { decodeScheduleChange, foldScheduleChanges, legacyRecreateWarning } from '../../src/legacy/index.ts';

const afterRecord = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  kind: 'after',
  prompt: 'Check the build',
  afterSeconds: 600,
  scheduledAt: '2030-01-01T08:10:00.000Z',
  ...extra,
});
const atRecord = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  kind: 'at',
  prompt: 'Review the release',
  scheduledAt: '2030-01-02T01:00:00.000Z',
  ...extra,
});
const everyRecord = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  kind: 'every',
  prompt: 'Stretch',
  everySeconds: 3600,
  scheduledAt: '2030-01-01T09:00:00.000Z',
  ...extra,
});
const createEv = (schedule: Record<string, unknown>) => ({ version: 1, operation: 'create', schedule });
const deleteEv = (id: string) => ({ version: 1, operation: 'delete', id });
const dispatchEv = (id: string) => ({ version: 1, operation: 'dispatch', id });

function codeOf(f: () => unknown): string {
  try {
    f();
  } catch (error) {
    expect(error).toBeInstanceOf(ScheduleError);
    return (error as ScheduleError).code;
  }
  return 'no error';
}

describe('decodeScheduleChange', () => {
  it('decodes valid events of every operation and kind to a fresh value equal to the input', () => {
    for (const event of [
      createEv(afterRecord('a1')),
      createEv(atRecord('a2')),
      createEv(everyRecord('a3', { title: 'Hourly stretch' })),
      createEv(afterRecord('a4', { title: 'Build check' })),
      deleteEv('a1'),
      dispatchEv('a2'),
    ]) {
      const decoded = decodeScheduleChange(structuredClone(event));
      expect(decoded).toEqual(event);
      expect(decoded).not.toBe(event);
    }
  });

  const invalid: Array<[string, unknown, string]> = [
    ['unknown version', { ...createEv(afterRecord('a1')), version: 2 }, 'version'],
    ['missing version', { operation: 'delete', id: 'a1' }, 'version'],
    ['unknown operation', { version: 1, operation: 'update', id: 'a1' }, 'operation'],
    ['extra field on the event', { ...deleteEv('a1'), reason: 'cleanup' }, 'reason'],
    ['schedule on a delete', { ...deleteEv('a1'), schedule: afterRecord('a1') }, 'schedule'],
    ['id on a create', { ...createEv(afterRecord('a1')), id: 'a1' }, 'id'],
    ['extra field on the record', createEv(afterRecord('a1', { colour: 'blue' })), 'schedule.colour'],
    ['a field of another kind', createEv(atRecord('a1', { afterSeconds: 5 })), 'schedule.afterSeconds'],
    ['a current-only kind', createEv({ ...atRecord('a1'), kind: 'daily' }), 'schedule.kind'],
    ['blank prompt', createEv(afterRecord('a1', { prompt: '   ' })), 'schedule.prompt'],
    ['untrimmed prompt', createEv(afterRecord('a1', { prompt: ' x ' })), 'schedule.prompt'],
    ['blank title when present', createEv(afterRecord('a1', { title: '  ' })), 'schedule.title'],
    ['title over 120 characters', createEv(afterRecord('a1', { title: 'x'.repeat(121) })), 'schedule.title'],
    ['non-positive delay', createEv(afterRecord('a1', { afterSeconds: 0 })), 'schedule.afterSeconds'],
    ['fractional delay', createEv(afterRecord('a1', { afterSeconds: 1.5 })), 'schedule.afterSeconds'],
    ['interval below 60 seconds', createEv(everyRecord('a1', { everySeconds: 30 })), 'schedule.everySeconds'],
    ['non-canonical target', createEv(atRecord('a1', { scheduledAt: '2030-01-02T01:00:00Z' })), 'schedule.scheduledAt'],
    ['missing target', createEv({ id: 'a1', kind: 'at', prompt: 'p' }), 'schedule.scheduledAt'],
    ['blank id', deleteEv(''), 'id'],
    ['numeric id', { version: 1, operation: 'dispatch', id: 7 }, 'id'],
    ['not an object', 'create a1', 'entry'],
    ['null', null, 'entry'],
  ];
  for (const [name, value, field] of invalid) {
    it(`rejects ${name} with corrupt_schedule_log naming ${field}`, () => {
      let message = '';
      expect(
        codeOf(() => {
          try {
            decodeScheduleChange(value);
          } catch (error) {
            message = (error as Error).message;
            throw error;
          }
        }),
      ).toBe('corrupt_schedule_log');
      expect(message).toContain(field);
    });
  }
});

describe('foldScheduleChanges', () => {
  it('folds to the active set in creation order', () => {
    const events = [
      createEv(afterRecord('a1')),
      createEv(atRecord('a2')),
      createEv(afterRecord('a3', { title: 'Third' })),
      dispatchEv('a1'),
      deleteEv('a3'),
      createEv(atRecord('a4')),
    ];
    const active = foldScheduleChanges(events);
    expect([...active.entries()]).toEqual([
      ['a2', atRecord('a2')],
      ['a4', atRecord('a4')],
    ]);
  });

  it('dispatch ends a one-shot but an every record stays active until deleted', () => {
    expect([...foldScheduleChanges([createEv(everyRecord('e1')), dispatchEv('e1'), dispatchEv('e1')]).keys()]).toEqual(['e1']);
    expect(foldScheduleChanges([createEv(everyRecord('e1')), dispatchEv('e1'), deleteEv('e1')]).size).toBe(0);
  });

  it('rejects a reused id, even after the first one ended', () => {
    expect(codeOf(() => foldScheduleChanges([createEv(afterRecord('a1')), dispatchEv('a1'), createEv(atRecord('a1'))]))).toBe(
      'corrupt_schedule_log',
    );
    expect(codeOf(() => foldScheduleChanges([createEv(afterRecord('a1')), createEv(atRecord('a1'))]))).toBe('corrupt_schedule_log');
  });

  it('rejects delete or dispatch of a record that is not active', () => {
    expect(codeOf(() => foldScheduleChanges([createEv(afterRecord('a1')), dispatchEv('a1'), deleteEv('a1')]))).toBe('corrupt_schedule_log');
    expect(codeOf(() => foldScheduleChanges([createEv(afterRecord('a1')), deleteEv('a1'), dispatchEv('a1')]))).toBe('corrupt_schedule_log');
    expect(codeOf(() => foldScheduleChanges([deleteEv('ghost')]))).toBe('corrupt_schedule_log');
  });

  it('rejects an invalid event inside the stream, naming its index', () => {
    expect(() => foldScheduleChanges([createEv(afterRecord('a1')), { ...deleteEv('a1'), version: 3 }])).toThrow(/event 1/);
  });

  it('a fork folds only events at index >= seedLength and keeps none of the parent’s active reminders', () => {
    const parent = [createEv(afterRecord('p1')), createEv(atRecord('p2')), dispatchEv('p1')];
    expect([...foldScheduleChanges(parent).keys()]).toEqual(['p2']);
    const fork = [...parent, createEv(afterRecord('c1', { title: 'Child' }))];
    const active = foldScheduleChanges(fork, { seedLength: parent.length });
    expect([...active.keys()]).toEqual(['c1']);
    expect(active.get('c1')).toEqual(afterRecord('c1', { title: 'Child' }));
    expect(foldScheduleChanges(parent, { seedLength: parent.length }).size).toBe(0);
    expect([...foldScheduleChanges(fork, { seedLength: 0 }).keys()].sort()).toEqual(['c1', 'p2']);
    expect(foldScheduleChanges(fork, { seedLength: 99 }).size).toBe(0);
  });

  it('a fork does not fold the parent events, so acting on a parent reminder is an inactive-record error', () => {
    const parent = [createEv(atRecord('p2'))];
    expect(codeOf(() => foldScheduleChanges([...parent, dispatchEv('p2')], { seedLength: 1 }))).toBe('corrupt_schedule_log');
  });

  it('rejects a seedLength that is not a non-negative integer', () => {
    expect(codeOf(() => foldScheduleChanges([], { seedLength: -1 }))).toBe('corrupt_schedule_log');
    expect(codeOf(() => foldScheduleChanges([], { seedLength: 1.5 }))).toBe('corrupt_schedule_log');
  });
});

describe('legacyRecreateWarning', () => {
  it('is null when nothing is active', () => {
    expect(legacyRecreateWarning('s1', new Map())).toBeNull();
  });

  it('names the Session and each reminder and asks to recreate them with schedule_create', () => {
    const active = foldScheduleChanges([createEv(atRecord('a2')), createEv(everyRecord('e1', { title: 'Hourly stretch' }))]);
    const warning = legacyRecreateWarning('session-9', active);
    expect(warning).not.toBeNull();
    expect(warning?.message).toContain('"session-9"');
    expect(warning?.message).toContain('2 active reminders');
    expect(warning?.message).toContain('"a2"');
    expect(warning?.message).toContain('"e1" ("Hourly stretch") every');
    expect(warning?.message).toContain('recreate them with schedule_create');
    expect(warning?.data).toEqual({ sessionId: 'session-9', reminders: [atRecord('a2'), everyRecord('e1', { title: 'Hourly stretch' })] });
  });
});

// What a slot reads of the rows an open left in storage, and how a call is answered when they
// cannot be read.
import type { Operation } from '../../machines/events.ts';
import { rowsNeeded, unreadAnswer } from '../../src/planning/readScope.ts';

const tool = (sessionId: string, name = 'schedule_list', args: unknown = {}): Operation => ({ kind: 'tool', sessionId, name, args });
const remote = (method: string, request?: unknown): Operation => ({ kind: 'remote', method, request }) as Operation;
const delivery = (sessionId: string): Operation =>
  ({ kind: 'delivery.commit', sessionId, outcome: { now: 0, delivered: [], failedIds: [], unrecordableIds: [] } }) as unknown as Operation;

describe('rowsNeeded', () => {
  it.each([
    ['a tool call reads its Session', [tool('a')], { sessions: ['a'] }],
    ['a run of creates reads nothing more', [tool('a', 'schedule_create'), tool('b', 'schedule_create')], undefined],
    [
      'calls of two Sessions read each once',
      [tool('a'), tool('b', 'schedule_delete'), tool('a', 'schedule_update')],
      { sessions: ['a', 'b'] },
    ],
    ['a remote call of one Session reads it', [remote('history', { sessionId: 'a', id: 'sch_1' })], { sessions: ['a'] }],
    ['a remote call without a Session reads every row', [remote('get', { id: 'sch_1' })], 'all'],
    ['the catalog reads every row', [remote('catalog', { sessionId: 'a' })], 'all'],
    [
      'counts need the rest counted, and the Session they name read',
      [remote('counts', { sessionId: 'a' })],
      { sessions: ['a'], counts: true },
    ],
    ['counts of the whole schedule need the rest counted', [remote('counts')], { sessions: [], counts: true }],
    ['a bulk batch reads every row', [{ kind: 'bulk.batch', progress: {} } as unknown as Operation], 'all'],
    ['an archive call reads its Session', [{ kind: 'archive.activity', sessionId: 'z' } as Operation], { sessions: ['z'] }],
    ['delivery commits read nothing more', [delivery('a'), delivery('b')], undefined],
    ['a failure write reads nothing more', [{ kind: 'failure.record', ids: ['sch_1'] } as Operation], undefined],
  ])('%s', (_name, ops, expected) => {
    expect(rowsNeeded(ops)).toEqual(expected);
  });
});

describe('unreadAnswer', () => {
  const failure = { code: 'persistence_uncertain', message: 'The stored tasks could not be read (gone).' } as const;
  it('a delete answers as a delete that deleted nothing, echoing its id', () => {
    expect(unreadAnswer(tool('a', 'schedule_delete', { id: 'sch_2' }), failure)).toEqual({ id: 'sch_2', deleted: false, ...failure });
    expect(unreadAnswer(remote('delete', { sessionId: 'a', id: 'sch_3' }), failure)).toEqual({ id: 'sch_3', deleted: false, ...failure });
    expect(unreadAnswer(remote('delete', { sessionId: 'a', id: 7 }), failure)).toEqual({ deleted: false, ...failure });
  });
  it('any other call answers the failure', () => {
    expect(unreadAnswer(tool('a', 'schedule_create'), failure)).toEqual(failure);
    expect(unreadAnswer(remote('list', { sessionId: 'a' }), failure)).toEqual(failure);
  });
});

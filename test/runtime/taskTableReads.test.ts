// Rows read from storage after the open join the table only where it holds nothing newer: a row
// the table holds (as stored or changed since) is kept, and a row removed while the read was under
// way is not brought back by it.
import { TaskTable } from '../../src/runtime/taskTable.ts';
import { row } from '../storage/fixtures.ts';

const ids = (rows: Iterable<{ readonly record: { readonly id: string } }>) => [...rows].map((r) => r.record.id);

describe('TaskTable reads of stored rows', () => {
  it('adds only rows it does not hold, and answers those added', () => {
    const table = new TaskTable({ tasks: [row(1)], nextTaskNumber: 4 });
    const changed = { ...row(1), record: { ...row(1).record, title: 'Changed since' } };
    table.apply({ puts: [changed], deletes: [] });
    table.beginRead();
    expect(ids(table.endRead([row(1), row(2, 'every', 's2'), row(3)]))).toEqual(['sch_2', 'sch_3']);
    expect(table.get('sch_1')?.record.title).toBe('Changed since');
    expect(ids(table.activeRows('s1'))).toEqual(['sch_1', 'sch_3']);
    expect(table.activeCount('s2')).toBe(1);
  });

  it('a row removed during a read stays removed; one removed before or after the reads is read again', () => {
    const table = new TaskTable({ tasks: [row(1), row(2)], nextTaskNumber: 3 });
    table.beginRead();
    table.beginRead();
    table.apply({ puts: [], deletes: ['sch_1'] });
    // The first read to end found the row before its removal.
    expect(ids(table.endRead([row(1)]))).toEqual([]);
    expect(ids(table.endRead([row(1)]))).toEqual([]);
    expect(table.get('sch_1')).toBeUndefined();
    // With no read under way, a removal is not remembered: a later read finds only what is stored.
    table.apply({ puts: [], deletes: ['sch_2'] });
    table.beginRead();
    expect(ids(table.endRead([row(2)]))).toEqual(['sch_2']);
  });

  it('a failed read adds nothing and ends the read', () => {
    const table = new TaskTable({ tasks: [], nextTaskNumber: 1 });
    table.beginRead();
    table.apply({ puts: [row(1)], deletes: [] });
    table.apply({ puts: [], deletes: ['sch_1'] });
    expect(table.endRead(undefined)).toEqual([]);
    table.beginRead();
    expect(ids(table.endRead([row(1)]))).toEqual(['sch_1']);
  });

  it('the counts include the rows left in storage; a row read in, during the count or after, leaves it', async () => {
    const table = new TaskTable({ tasks: [row(1)], nextTaskNumber: 5 });
    const now = Date.parse('2000-01-01T00:00:00Z');
    // The storage holds three rows the table does not: sch_2 and sch_3 active, sch_4 ended.
    let heldAtCount: string[] = [];
    await table.countUnread(async (held) => {
      heldAtCount = ids(held);
      table.beginRead();
      table.endRead([row(2)]);
      return { total: 3, ended: 1, paused: 0, failing: 0 };
    });
    expect(heldAtCount).toEqual(['sch_1']);
    expect(table.unreadCounted).toBe(true);
    expect(table.counts(now).all).toMatchObject({ total: 4, ended: 1 });
    table.beginRead();
    table.endRead([row(3), { ...row(4), status: 'inactive' }]);
    expect(table.counts(now).all).toMatchObject({ total: 4, ended: 1 });
  });
});

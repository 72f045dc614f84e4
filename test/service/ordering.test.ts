// The one mailbox (docs/management.md): calls take their place when they are made and run in that order,
// across Sessions, with their persistence awaited inside their slot.
import { MemoryStorage } from '../../src/adapters/memoryStorage.ts';
import { closeAll, create, harness } from '../support/harness.ts';

afterEach(closeAll);

interface StoredDoc {
  tasks: Array<{ sessionId: string; record: { id: string; title: string } }>;
  nextTaskNumber: number;
}

describe('mailbox ordering', () => {
  it('40 concurrent creates from 5 Sessions persist with distinct ids in arrival order', async () => {
    const storage = new MemoryStorage();
    const h = await harness({ storage });
    const calls = Array.from({ length: 40 }, (_, i) =>
      h.svc.callTool(`s${i % 5}`, 'schedule_create', { prompt: `p${i}`, title: `call ${i}`, after_seconds: 60 + i }),
    );
    const views = (await Promise.all(calls)) as Array<{ id: string; title: string }>;
    const ids = views.map((v) => v.id);
    expect(new Set(ids).size).toBe(40);
    expect(ids).toEqual(Array.from({ length: 40 }, (_, i) => `sch_${i + 1}`));
    const doc = storage.document() as StoredDoc;
    expect(doc.tasks).toHaveLength(40);
    for (const row of doc.tasks) {
      const n = Number(row.record.id.slice(4)) - 1;
      expect(row.record.title).toBe(`call ${n}`);
      expect(row.sessionId).toBe(`s${n % 5}`);
    }
    expect(doc.nextTaskNumber).toBe(41);
    // The first create runs alone; each later run of creates for five different Sessions shares a commit.
    expect(storage.commitCount).toBe(1 + Math.ceil(39 / 5));
  });

  it('a read queued after an un-awaited create sees it; a sessionStop queued after it deletes it', async () => {
    const h = await harness();
    const created = h.svc.callTool('s1', 'schedule_create', { prompt: 'p', title: 't', every_seconds: 600 });
    const listed = h.svc.callTool('s1', 'schedule_list', {});
    const stopped = h.svc.archive.sessionStop('s1');
    const listedAfter = h.svc.callTool('s1', 'schedule_list', {});
    const [view, list, , after] = (await Promise.all([created, listed, stopped, listedAfter])) as [
      { id: string },
      Array<{ id: string }>,
      undefined,
      unknown[],
    ];
    expect(list.map((v) => v.id)).toEqual([view.id]);
    expect(after).toEqual([]);
    expect(await h.svc.remote.catalog()).toEqual([]);
  });

  it('ids are never reused after deletion, even across a reopen', async () => {
    const storage = new MemoryStorage();
    const first = await harness({ storage });
    const a = await create(first, 's1', { after_seconds: 60 });
    expect(await first.svc.callTool('s1', 'schedule_delete', { id: a.id })).toEqual({ id: a.id, deleted: true });
    await first.svc.close();
    const second = await harness({ storage });
    const b = await create(second, 's1', { after_seconds: 60 });
    expect(b.id).not.toBe(a.id);
    expect(b.id).toBe('sch_2');
  });

  it('a failed write still consumes the id it reserved (the write may have landed)', async () => {
    const storage = new MemoryStorage();
    const h = await harness({ storage });
    storage.failNextCommit();
    const failed = (await h.svc.callTool('s1', 'schedule_create', { prompt: 'p', title: 't', after_seconds: 60 })) as { code: string };
    expect(failed.code).toBe('persistence_uncertain');
    expect(await h.svc.remote.catalog()).toEqual([]);
    const next = await create(h, 's1', { after_seconds: 60 });
    expect(next.id).toBe('sch_2');
    expect(h.changes.map((c) => c.ids)).toEqual([['sch_2']]);
  });
});

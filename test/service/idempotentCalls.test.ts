// Idempotent calls (SPEC §15): a mutating tool or remote call repeated with its `callId` answers
// the first answer and writes nothing, across a restart; another call under the same key is
// `idempotency_conflict`; a refusal is not remembered; a write that came back uncertain is retried
// with the same batch, so a retry never makes a second task; remembered calls are forgotten once
// past their retention.

import { jsonFileStorage } from '../../src/adapters/jsonFileStorage.ts';
import { loadDomainFiles } from '../../src/adapters/loadDomain.ts';
import { MemoryStorage, memoryStorage } from '../../src/adapters/memoryStorage.ts';
import { ScheduleError } from '../../src/domain/errors.ts';
import type { CommitBatch } from '../../src/ports.ts';
import { closeAll, closeHarness, create, DAY, HOUR, harness, tempDir, tick } from '../support/harness.ts';

afterEach(closeAll);

const daily = { title: 'Standup', prompt: 'Post the notes.', daily: { time: '09:30:00', time_zone: 'Europe/Berlin' } };

/** A memory storage whose next commits land and then report `persistence_uncertain`, as a connection lost during COMMIT does. */
class LandsThenUncertain extends MemoryStorage {
  uncertainLeft = 0;

  override async commit(batch: CommitBatch): Promise<void> {
    await super.commit(batch);
    if (this.uncertainLeft > 0) {
      this.uncertainLeft--;
      throw new ScheduleError('persistence_uncertain', 'The connection was lost during COMMIT.');
    }
  }
}

describe('a repeated callId', () => {
  it('a create answers the first answer, writes nothing and announces nothing', async () => {
    const storage = memoryStorage();
    const h = await harness({ storage });
    const first = await h.svc.callTool('s1', 'schedule_create', daily, { callId: 'toolu_01' });
    const commits = storage.commitCount;
    const changes = h.changes.length;
    const again = await h.svc.callTool('s1', 'schedule_create', { ...daily }, { callId: 'toolu_01' });
    expect(again).toEqual(first);
    expect(storage.commitCount).toBe(commits);
    expect(h.changes).toHaveLength(changes);
    expect(await h.svc.callTool('s1', 'schedule_list', {})).toHaveLength(1);
  });

  it('compares arguments whatever the order of their members', async () => {
    const h = await harness();
    const first = await h.svc.callTool('s1', 'schedule_create', daily, { callId: 'k' });
    const reordered = { daily: { time_zone: 'Europe/Berlin', time: '09:30:00' }, prompt: daily.prompt, title: daily.title };
    expect(await h.svc.callTool('s1', 'schedule_create', reordered, { callId: 'k' })).toEqual(first);
  });

  it('answers a copy: changing the first answer does not change a repeated one', async () => {
    const h = await harness();
    const first = (await h.svc.callTool('s1', 'schedule_create', daily, { callId: 'k' })) as unknown as Record<string, unknown>;
    const kept = structuredClone(first);
    first.title = 'changed by the caller';
    expect(await h.svc.callTool('s1', 'schedule_create', daily, { callId: 'k' })).toEqual(kept);
  });

  it('is remembered in the document and the journal, and after a restart on the file storage', async () => {
    const path = `${tempDir()}/schedule.json`;
    const h = await harness({ storage: jsonFileStorage({ path }) });
    const first = await h.svc.callTool('s1', 'schedule_create', daily, { callId: 'call_abc' });
    const { state } = await loadDomainFiles(path); // what a crash right now would reopen
    expect(state.calls.map((c) => [c.sessionId, c.callId, c.operation])).toEqual([['s1', 'call_abc', 'schedule_create']]);
    await closeHarness(h);
    const reopened = await harness({ storage: jsonFileStorage({ path }) });
    expect(await reopened.svc.callTool('s1', 'schedule_create', daily, { callId: 'call_abc' })).toEqual(first);
    expect(await reopened.svc.callTool('s1', 'schedule_list', {})).toHaveLength(1);
  });

  it('under another tool or with other arguments is idempotency_conflict and writes nothing', async () => {
    const storage = memoryStorage();
    const h = await harness({ storage });
    const view = await create(h, 's1', { after_seconds: 3600 });
    const first = await h.svc.callTool('s1', 'schedule_update', { id: view.id, title: 'Renamed' }, { callId: 'u1' });
    expect(first).toMatchObject({ title: 'Renamed' });
    const commits = storage.commitCount;
    expect(await h.svc.callTool('s1', 'schedule_update', { id: view.id, title: 'Other' }, { callId: 'u1' })).toMatchObject({
      code: 'idempotency_conflict',
    });
    expect(await h.svc.callTool('s1', 'schedule_delete', { id: view.id }, { callId: 'u1' })).toMatchObject({
      code: 'idempotency_conflict',
    });
    expect(await h.svc.remote.pause({ sessionId: 's1', id: view.id }, { callId: 'u1' })).toMatchObject({ code: 'idempotency_conflict' });
    expect(storage.commitCount).toBe(commits);
  });

  it('an update that changes nothing is remembered too, so its repeat answers the same view', async () => {
    const h = await harness();
    const view = await create(h, 's1', { title: 'Same', after_seconds: 3600 });
    const first = await h.svc.callTool('s1', 'schedule_update', { id: view.id, title: 'Same' }, { callId: 'noop' });
    await h.svc.callTool('s1', 'schedule_update', { id: view.id, title: 'Later' });
    expect(await h.svc.callTool('s1', 'schedule_update', { id: view.id, title: 'Same' }, { callId: 'noop' })).toEqual(first);
  });

  it('a refusal is not remembered, and schedule_list ignores callId', async () => {
    const h = await harness();
    expect(await h.svc.callTool('s1', 'schedule_delete', { id: 'sch_9' }, { callId: 'd' })).toMatchObject({ deleted: false });
    await create(h, 's1', { after_seconds: 3600 });
    expect(await h.svc.callTool('s1', 'schedule_delete', { id: 'sch_1' }, { callId: 'd' })).toEqual({ id: 'sch_1', deleted: true });
    expect(await h.svc.callTool('s1', 'schedule_list', {}, { callId: 'd' })).toEqual([]);
  });

  it('a callId that is not a string of 1 to 256 characters is invalid_selector', async () => {
    const h = await harness();
    for (const callId of ['', 'x'.repeat(257), 42 as unknown as string]) {
      expect(await h.svc.callTool('s1', 'schedule_create', daily, { callId })).toMatchObject({ code: 'invalid_selector' });
    }
    expect(await h.svc.callTool('s1', 'schedule_create', daily, { callId: 'x'.repeat(256) })).not.toHaveProperty('code');
  });
});

describe('remote calls with a callId', () => {
  it('a run now repeated with its key is delivered once', async () => {
    const h = await harness();
    const view = await create(h, 's1', { every_seconds: 3600 });
    const first = await h.svc.remote.trigger({ sessionId: 's1', id: view.id }, { callId: 'run-1' });
    expect(await h.svc.remote.trigger({ sessionId: 's1', id: view.id }, { callId: 'run-1' })).toEqual(first);
    await tick(h, 0);
    expect(h.sessions.messages('s1')).toHaveLength(1);
  });

  it('a delete repeated with its key answers the first answer, an update with a stale expected record too', async () => {
    const h = await harness();
    const a = await create(h, 's1', { after_seconds: 3600 });
    const b = await create(h, 's1', { after_seconds: 3600 });
    const entry = await h.svc.remote.get({ sessionId: 's1', id: b.id });
    if ('code' in entry) throw new Error(entry.message);
    const update = { sessionId: 's1', id: b.id, expected: entry.record, title: 'Edited' };
    const edited = await h.svc.remote.update(update, { callId: 'edit' });
    expect(await h.svc.remote.update(update, { callId: 'edit' })).toEqual(edited);
    expect(await h.svc.remote.update(update)).toMatchObject({ code: 'schedule_conflict' });
    const deleted = await h.svc.remote.delete({ sessionId: 's1', id: a.id }, { callId: 'del' });
    expect(await h.svc.remote.delete({ sessionId: 's1', id: a.id }, { callId: 'del' })).toEqual(deleted);
  });

  it('a key belongs to the Session named in the request', async () => {
    const h = await harness();
    const a = await create(h, 's1', { every_seconds: 3600 });
    const b = await create(h, 's2', { every_seconds: 3600 });
    await h.svc.remote.pause({ sessionId: 's1', id: a.id }, { callId: 'same' });
    expect(await h.svc.remote.pause({ sessionId: 's2', id: b.id }, { callId: 'same' })).toMatchObject({ state: 'paused', id: b.id });
  });
});

describe('a write that came back uncertain', () => {
  it('retried with the same callId makes no second task, though the first write landed', async () => {
    const storage = new LandsThenUncertain();
    const h = await harness({ storage });
    storage.uncertainLeft = 1;
    const first = await h.svc.callTool('s1', 'schedule_create', daily, { callId: 'toolu_retry' });
    expect(first).toMatchObject({ code: 'persistence_uncertain' });
    const retried = await h.svc.callTool('s1', 'schedule_create', daily, { callId: 'toolu_retry' });
    expect(retried).toMatchObject({ id: 'sch_1', title: 'Standup' });
    expect(await h.svc.callTool('s1', 'schedule_create', daily, { callId: 'toolu_retry' })).toEqual(retried);
    await closeHarness(h);
    const reopened = await harness({ storage });
    expect(await reopened.svc.callTool('s1', 'schedule_list', {})).toEqual([expect.objectContaining({ id: 'sch_1' })]);
  });

  it('without a callId the same retry makes a second task (why the key is needed)', async () => {
    const storage = new LandsThenUncertain();
    const h = await harness({ storage });
    storage.uncertainLeft = 1;
    expect(await h.svc.callTool('s1', 'schedule_create', daily)).toMatchObject({ code: 'persistence_uncertain' });
    await h.svc.callTool('s1', 'schedule_create', daily);
    await closeHarness(h);
    const reopened = await harness({ storage });
    expect(await reopened.svc.callTool('s1', 'schedule_list', {})).toHaveLength(2);
  });

  it('is planned afresh once a row it names changed meanwhile', async () => {
    const storage = new LandsThenUncertain();
    const h = await harness({ storage });
    const view = await create(h, 's1', { after_seconds: 3600 });
    storage.uncertainLeft = 1;
    expect(await h.svc.callTool('s1', 'schedule_update', { id: view.id, title: 'A' }, { callId: 'u' })).toMatchObject({
      code: 'persistence_uncertain',
    });
    await h.svc.callTool('s1', 'schedule_update', { id: view.id, prompt: 'changed meanwhile' });
    const retried = await h.svc.callTool('s1', 'schedule_update', { id: view.id, title: 'A' }, { callId: 'u' });
    expect(retried).toMatchObject({ title: 'A', prompt: 'changed meanwhile' });
  });
});

describe('retention of remembered calls', () => {
  it('a call older than a day is forgotten by a later remembered call; younger ones are kept', async () => {
    const storage = memoryStorage();
    const h = await harness({ storage });
    await h.svc.callTool('s1', 'schedule_create', daily, { callId: 'old' });
    await tick(h, 12 * HOUR);
    await h.svc.callTool('s1', 'schedule_create', daily, { callId: 'younger' });
    await tick(h, DAY - 11 * HOUR);
    await h.svc.callTool('s1', 'schedule_create', daily, { callId: 'new' });
    const kept = (storage.document() as { calls: Array<{ callId: string }> }).calls.map((c) => c.callId);
    expect(kept).toEqual(['younger', 'new']);
    const other = await h.svc.callTool('s1', 'schedule_create', { ...daily, title: 'Other' }, { callId: 'old' });
    expect(other).toMatchObject({ title: 'Other' });
  });
});

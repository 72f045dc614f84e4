// Creates queued together for different Sessions share one commit: each is planned as it would be
// alone and answered on its own (its view, its refusal or its abort), the changes are told per
// Session, and a failed write answers every create of the run `persistence_uncertain` and changes
// nothing in memory. A second create for a Session in the run waits for a slot of its own.
import { MemoryStorage } from '../../src/adapters/memoryStorage.ts';
import { ScheduleError } from '../../src/domain/errors.ts';
import type { CommitBatch } from '../../src/ports.ts';
import { closeAll, closeHarness, type Harness, harness } from '../support/harness.ts';
import { waitUntil } from '../support/waitUntil.ts';

afterEach(closeAll);

/** Memory storage that records every batch it is asked to commit; the commits numbered in `failing` fail (1 is the first). */
class RecordingStorage extends MemoryStorage {
  readonly batches: CommitBatch[] = [];
  readonly failing = new Set<number>();
  override async commit(batch: CommitBatch): Promise<void> {
    this.batches.push(batch);
    if (this.failing.has(this.batches.length)) {
      await Promise.resolve();
      throw new ScheduleError('persistence_uncertain', 'The connection was lost during COMMIT.');
    }
    await super.commit(batch);
  }
}

/** Recording storage whose task numbers come from a counter, as a database sequence hands them out. */
class SequencedStorage extends RecordingStorage {
  /** Blocks asked for so far. */
  allocations = 0;
  /** The allocation with this number (1 is the first) waits until `release` is called. */
  held: number | undefined;
  /** Lets the held allocation go on. */
  release: () => void = () => undefined;
  private readonly gate = new Promise<void>((resolve) => {
    this.release = resolve;
  });

  constructor(private next: number) {
    super();
  }

  async allocateTaskNumbers(count: number): Promise<readonly number[]> {
    this.allocations++;
    if (this.allocations === this.held) await this.gate;
    return Array.from({ length: count }, () => this.next++);
  }
}

type View = { id: string; title: string };
type Answer = View | { code: string; message: string };

const args = (n: number) => ({ prompt: `check item ${n}`, title: `item ${n}`, after_seconds: 60 + n });

/** Fires a create for each Session without awaiting any of them. */
const createAll = (h: Harness, sessions: readonly string[], options: (i: number) => { callId?: string } = () => ({})) =>
  sessions.map((sessionId, i) => h.svc.callTool(sessionId, 'schedule_create', args(i), options(i)) as Promise<Answer>);

const sessionsOf = (n: number): string[] => Array.from({ length: n }, (_, i) => `s${i}`);

const viewOf = (answer: Answer): View => {
  if ('code' in answer) throw new Error(`create failed: ${answer.code}`);
  return answer;
};

describe('a run of creates', () => {
  it('50 creates for 50 Sessions share commits, each answered its own view, told per Session and kept across a reopen', async () => {
    const storage = new RecordingStorage();
    const h = await harness({ storage });
    const sessions = sessionsOf(50);
    const views = (await Promise.all(createAll(h, sessions))).map(viewOf);
    // The first create starts its slot alone; the other 49 queue behind it and run as one.
    expect(storage.batches.length).toBeLessThan(50);
    expect(storage.batches.map((b) => b.puts.length)).toEqual([1, 49]);
    expect(views.map((v) => v.title)).toEqual(sessions.map((_, i) => `item ${i}`));
    expect(new Set(views.map((v) => v.id)).size).toBe(50);
    expect(h.changes.map((c) => [c.sessionId, c.ids])).toEqual(sessions.map((s, i) => [s, [views[i]?.id]]));
    for (const [i, sessionId] of sessions.entries()) {
      expect(((await h.svc.callTool(sessionId, 'schedule_list', {})) as View[]).map((v) => v.id)).toEqual([views[i]?.id]);
    }
    await closeHarness(h);
    const reopened = await harness({ storage });
    const catalog = await reopened.svc.remote.catalog();
    expect(catalog.map((e) => [e.sessionId, e.record.id])).toEqual(sessions.map((s, i) => [s, views[i]?.id]));
    const next = viewOf((await reopened.svc.callTool('s0', 'schedule_create', args(99))) as Answer);
    expect(views.map((v) => v.id)).not.toContain(next.id);
  });

  it('a failed write answers every create of the run persistence_uncertain and changes nothing in memory', async () => {
    const storage = new RecordingStorage();
    storage.failing.add(2);
    const h = await harness({ storage });
    const answers = await Promise.all(createAll(h, sessionsOf(10)));
    const [first, ...rest] = answers;
    const kept = viewOf(first as Answer);
    expect(rest.map((a) => ('code' in a ? a.code : 'view'))).toEqual(Array(9).fill('persistence_uncertain'));
    expect((await h.svc.remote.catalog()).map((e) => e.record.id)).toEqual([kept.id]);
    for (const sessionId of sessionsOf(10).slice(1)) expect(await h.svc.callTool(sessionId, 'schedule_list', {})).toEqual([]);
    expect(h.changes.map((c) => c.sessionId)).toEqual(['s0']);
    // A failed write may have landed: the ids it used are never handed out again.
    const later = viewOf((await h.svc.callTool('s1', 'schedule_create', args(1))) as Answer);
    expect(Number(later.id.slice(4))).toBeGreaterThan(10);
  });

  it('after an uncertain write, retrying one create of the run with its callId writes that create alone, under its first id', async () => {
    const storage = new RecordingStorage();
    storage.failing.add(2);
    const h = await harness({ storage });
    const answers = await Promise.all(createAll(h, sessionsOf(5), (i) => ({ callId: `call-${i}` })));
    expect(answers.slice(1).every((a) => 'code' in a && a.code === 'persistence_uncertain')).toBe(true);
    const retried = viewOf((await h.svc.callTool('s3', 'schedule_create', args(3), { callId: 'call-3' })) as Answer);
    expect(retried.title).toBe('item 3');
    expect(storage.batches.at(-1)?.puts.map((row) => row.record.id)).toEqual([retried.id]);
    expect(storage.batches[1]?.puts.map((row) => row.record.id)).toContain(retried.id);
    expect((await h.svc.remote.catalog()).map((e) => e.sessionId)).toEqual(['s0', 's3']);
    // Now remembered: the same call answers the same view and writes nothing.
    const commits = storage.batches.length;
    expect(await h.svc.callTool('s3', 'schedule_create', args(3), { callId: 'call-3' })).toEqual(retried);
    expect(storage.batches).toHaveLength(commits);
  });

  it('two creates for one Session in a row are written in separate slots, the second seeing the first', async () => {
    const storage = new RecordingStorage();
    const h = await harness({ storage });
    const answers = (await Promise.all(createAll(h, ['x', 'a', 'b', 'a', 'c']))).map(viewOf);
    expect(storage.batches.map((b) => b.puts.map((row) => row.sessionId))).toEqual([['x'], ['a', 'b'], ['a', 'c']]);
    expect(((await h.svc.callTool('a', 'schedule_list', {})) as View[]).map((v) => v.id).sort()).toEqual(
      [answers[1]?.id, answers[3]?.id].sort(),
    );
  });

  it('a refused create and an aborted one are answered on their own; the others are written', async () => {
    const storage = new RecordingStorage();
    const h = await harness({ storage });
    const aborted = new AbortController();
    const calls = [
      h.svc.callTool('s0', 'schedule_create', args(0)),
      h.svc.callTool('s1', 'schedule_create', args(1)),
      h.svc.callTool('s2', 'schedule_create', args(2), { signal: aborted.signal }),
      h.svc.callTool('s3', 'schedule_create', { prompt: 'no schedule given' }),
      h.svc.callTool('s4', 'schedule_create', args(4)),
    ];
    aborted.abort(new Error('the caller went away'));
    const settled = await Promise.allSettled(calls);
    const outcome = (i: number): string => {
      const s = settled[i];
      if (s?.status !== 'fulfilled') return `rejected: ${String((s?.reason as Error | undefined)?.message)}`;
      return 'code' in s.value ? s.value.code : 'view';
    };
    expect([0, 1, 2, 3, 4].map(outcome)).toEqual(['view', 'view', 'rejected: the caller went away', 'invalid_prompt', 'view']);
    expect(storage.batches.map((b) => b.puts.map((row) => row.sessionId))).toEqual([['s0'], ['s1', 's4']]);
    expect((await h.svc.remote.catalog()).map((e) => e.sessionId)).toEqual(['s0', 's1', 's4']);
  });

  it('a create aborted after it was planned, before the write, is answered with its abort and left out of the batch', async () => {
    const storage = new SequencedStorage(1);
    // Blocks double: one number for x, two for a and b, then c's block is held while a is aborted.
    storage.held = 3;
    const h = await harness({ storage });
    const aborted = new AbortController();
    const calls = [
      h.svc.callTool('x', 'schedule_create', args(0)),
      h.svc.callTool('a', 'schedule_create', args(1), { signal: aborted.signal }),
      h.svc.callTool('b', 'schedule_create', args(2)),
      h.svc.callTool('c', 'schedule_create', args(3)),
    ];
    await waitUntil(() => storage.allocations === 3, 'the third block of task numbers to be asked for');
    aborted.abort(new Error('the caller went away'));
    storage.release();
    const settled = await Promise.allSettled(calls);
    expect(settled.map((s) => (s.status === 'fulfilled' ? viewOf(s.value as Answer).title : String((s.reason as Error).message)))).toEqual([
      'item 0',
      'the caller went away',
      'item 2',
      'item 3',
    ]);
    expect(storage.batches.map((b) => b.puts.map((row) => row.sessionId))).toEqual([['x'], ['b', 'c']]);
    expect((await h.svc.remote.catalog()).map((e) => e.sessionId)).toEqual(['x', 'b', 'c']);
  });

  it('a create repeated with its callId in a run answers its first answer and adds nothing to the batch', async () => {
    const storage = new RecordingStorage();
    const h = await harness({ storage });
    const first = viewOf((await h.svc.callTool('s1', 'schedule_create', args(1), { callId: 'k' })) as Answer);
    const [, again, other] = await Promise.all([
      h.svc.callTool('s0', 'schedule_create', args(0)),
      h.svc.callTool('s1', 'schedule_create', args(1), { callId: 'k' }),
      h.svc.callTool('s2', 'schedule_create', args(2), { callId: 'k' }),
    ]);
    expect(again).toEqual(first);
    expect(viewOf(other as Answer).title).toBe('item 2');
    expect(storage.batches.slice(1).map((b) => b.puts.map((row) => row.sessionId))).toEqual([['s0'], ['s2']]);
    expect(storage.batches.at(-1)?.calls?.map((c) => [c.sessionId, c.callId])).toEqual([['s2', 'k']]);
  });

  it('task numbers from storage: every create of a run takes its own, and the batch names no counter', async () => {
    const storage = new SequencedStorage(1_000);
    const h = await harness({ storage });
    const views = (await Promise.all(createAll(h, sessionsOf(40)))).map(viewOf);
    expect(views.map((v) => v.id)).toEqual(Array.from({ length: 40 }, (_, i) => `sch_${1_000 + i}`));
    expect(storage.batches.length).toBeLessThan(40);
    for (const batch of storage.batches) expect(batch.nextTaskNumber).toBeUndefined();
  });
});

// The `schedule.reply` of each operation, on the memory storage with a manual clock: the reply
// echoes the call's operation as `op`, so narrowing by `op`, `ok` and `isRefusal` gives the
// operation's successful answer as `value` (checked by the compiler, with no cast). As SPEC §10
// has it, a refusal written for the model is `ok: true` with `{code, message}` as `value` (what the
// promise service resolves with), and a call that could not run is `ok: false` with `error:
// {code, message}` (what it rejects with).
import { createActor, waitFor } from 'xstate';
import type { ScheduleCall, ScheduleReplyEvent } from '../../machines/events.ts';
import { callOp, isRefusal } from '../../machines/scheduleReply.ts';
import { memoryStorage } from '../../src/adapters/memoryStorage.ts';
import type {
  ArchiveActivity,
  BulkResult,
  CatalogEntry,
  CatalogPage,
  DriftPage,
  DriftReport,
  HistoryPage,
  ScheduleCounts,
  ScheduleView,
  TaskDeleted,
} from '../../src/index.ts';
import { scheduleSupervisor } from '../../src/supervisor.ts';
import { createFakeSessions, createManualClock } from '../../src/testing.ts';

const T0 = '2030-01-01T08:00:00.000Z';
const create = { title: 'Stretch', prompt: 'Stretch now', after_seconds: 3600 };

/** A root supervisor on the memory storage; `ask` sends a call and resolves with its reply. */
function startSupervisor() {
  const actor = createActor(scheduleSupervisor, {
    input: { sessions: createFakeSessions(), storage: memoryStorage(), clock: createManualClock(T0) },
  });
  const replies = new Map<string, ScheduleReplyEvent>();
  actor.on('schedule.reply', (reply) => replies.set(reply.requestId, reply));
  actor.start();
  let seq = 0;
  const ask = async (call: ScheduleCall): Promise<ScheduleReplyEvent> => {
    const requestId = `r${++seq}`;
    actor.send({ type: 'schedule.call', requestId, call });
    await waitFor(actor, () => replies.has(requestId));
    const reply = replies.get(requestId);
    if (reply === undefined) throw new Error(`no reply to ${requestId}`);
    return reply;
  };
  return { actor, ask };
}

/** A reply that should have succeeded, reported with its error when it did not. */
function fail(reply: ScheduleReplyEvent): never {
  throw new Error(`unexpected reply ${JSON.stringify(reply.ok ? reply.op : reply.error)}`);
}

describe('schedule.reply is typed by the operation of its call', () => {
  it('each tool, remote and archive operation narrows to its successful answer', async () => {
    const { actor, ask } = startSupervisor();
    const created = await ask({ kind: 'tool', sessionId: 's1', name: 'schedule_create', args: create });
    if (created.op !== 'schedule_create' || !created.ok || isRefusal(created.value)) fail(created);
    expectTypeOf(created.value).toEqualTypeOf<ScheduleView>();
    const { id } = created.value;
    const ref = { sessionId: 's1', id };

    const listed = await ask({ kind: 'tool', sessionId: 's1', name: 'schedule_list', args: {} });
    if (listed.op !== 'schedule_list' || !listed.ok || isRefusal(listed.value)) fail(listed);
    expectTypeOf(listed.value).toEqualTypeOf<ScheduleView[]>();
    expect(listed.value.map((view) => view.id)).toEqual([id]);

    const updated = await ask({ kind: 'tool', sessionId: 's1', name: 'schedule_update', args: { id, title: 'Stretch well' } });
    if (updated.op !== 'schedule_update' || !updated.ok || isRefusal(updated.value)) fail(updated);
    expect(updated.value.title).toBe('Stretch well');

    const paused = await ask({ kind: 'remote', method: 'pause', request: { ...ref, note: 'away' } });
    if (paused.op !== 'remote.pause' || !paused.ok || isRefusal(paused.value)) fail(paused);
    expectTypeOf(paused.value).toEqualTypeOf<ScheduleView>();
    expect(paused.value.state).toBe('paused');
    const resumed = await ask({ kind: 'remote', method: 'resume', request: ref });
    if (resumed.op !== 'remote.resume' || !resumed.ok || isRefusal(resumed.value)) fail(resumed);
    expect(resumed.value.state).toBe('scheduled');
    const triggered = await ask({ kind: 'remote', method: 'trigger', request: ref });
    if (triggered.op !== 'remote.trigger' || !triggered.ok || isRefusal(triggered.value)) fail(triggered);
    expect(triggered.value.id).toBe(id);

    const got = await ask({ kind: 'remote', method: 'get', request: ref });
    if (got.op !== 'remote.get' || !got.ok || isRefusal(got.value)) fail(got);
    expectTypeOf(got.value).toEqualTypeOf<CatalogEntry>();
    expect(got.value.record.id).toBe(id);
    const catalog = await ask({ kind: 'remote', method: 'catalog', request: { limit: 10 } });
    if (catalog.op !== 'remote.catalog' || !catalog.ok || isRefusal(catalog.value)) fail(catalog);
    expectTypeOf(catalog.value).toEqualTypeOf<CatalogEntry[] | CatalogPage>();
    expect('entries' in catalog.value ? catalog.value.entries.length : -1).toBe(1);
    const history = await ask({ kind: 'remote', method: 'history', request: { ...ref, limit: 10 } });
    if (history.op !== 'remote.history' || !history.ok || isRefusal(history.value)) fail(history);
    expectTypeOf(history.value).toEqualTypeOf<HistoryPage>();
    const drift = await ask({ kind: 'remote', method: 'drift' });
    if (drift.op !== 'remote.drift' || !drift.ok || isRefusal(drift.value)) fail(drift);
    expectTypeOf(drift.value).toEqualTypeOf<DriftReport | DriftPage>();
    const counts = await ask({ kind: 'remote', method: 'counts', request: {} });
    if (counts.op !== 'remote.counts' || !counts.ok || isRefusal(counts.value)) fail(counts);
    expectTypeOf(counts.value).toEqualTypeOf<ScheduleCounts>();
    const bulk = await ask({ kind: 'remote', method: 'bulk', request: { action: 'pause', tasks: [ref] } });
    if (bulk.op !== 'remote.bulk' || !bulk.ok || isRefusal(bulk.value)) fail(bulk);
    expectTypeOf(bulk.value).toEqualTypeOf<BulkResult>();
    expect(bulk.value).toMatchObject({ matched: 1, done: 1 });

    const activity = await ask({ kind: 'archive', method: 'sessionActivity', sessionId: 's1' });
    if (activity.op !== 'archive.sessionActivity' || !activity.ok || isRefusal(activity.value)) fail(activity);
    expectTypeOf(activity.value).toEqualTypeOf<ArchiveActivity[]>();
    expect(activity.value[0]?.items.map((item) => item.id)).toEqual([id]);

    const deleted = await ask({ kind: 'remote', method: 'delete', request: ref });
    if (deleted.op !== 'remote.delete' || !deleted.ok || isRefusal(deleted.value)) fail(deleted);
    expectTypeOf(deleted.value).toEqualTypeOf<TaskDeleted>();
    expect(deleted.value).toEqual({ id, deleted: true });
    const stopped = await ask({ kind: 'archive', method: 'sessionStop', sessionId: 's1' });
    expect(stopped).toMatchObject({ op: 'archive.sessionStop', ok: true });
    actor.send({ type: 'schedule.close' });
    await waitFor(actor, (s) => s.status !== 'active');
  });

  it('a pause of an unknown id is a refusal: ok: true with schedule_not_found, told apart by isRefusal', async () => {
    const { ask } = startSupervisor();
    const reply = await ask({ kind: 'remote', method: 'pause', request: { sessionId: 's1', id: 'sch_missing' } });
    expect(reply).toMatchObject({ type: 'schedule.reply', op: 'remote.pause', ok: true, value: { code: 'schedule_not_found' } });
    if (reply.op !== 'remote.pause' || !reply.ok || !isRefusal(reply.value)) fail(reply);
    expectTypeOf(reply.value.code).toEqualTypeOf<import('../../src/index.ts').ErrorCode>();
    expect(reply.value.message).not.toBe('');
  });

  it('a delete that deleted nothing and bad tool arguments are refusals, each with a code and a message', async () => {
    const { ask } = startSupervisor();
    const notDeleted = await ask({ kind: 'tool', sessionId: 's1', name: 'schedule_delete', args: { id: 'sch_missing' } });
    expect(notDeleted).toMatchObject({ op: 'schedule_delete', ok: true, value: { code: 'schedule_not_found' } });
    if (notDeleted.op !== 'schedule_delete' || !notDeleted.ok || !isRefusal(notDeleted.value)) fail(notDeleted);
    expect(notDeleted.value.code).toBe('schedule_not_found');
    const invalid = await ask({ kind: 'tool', sessionId: 's1', name: 'schedule_create', args: { ...create, prompt: ' ' } });
    expect(invalid).toMatchObject({ op: 'schedule_create', ok: true, value: { code: 'invalid_prompt' } });
    if (invalid.op !== 'schedule_create' || !invalid.ok || !isRefusal(invalid.value)) fail(invalid);
    expect(invalid.value.message).not.toBe('');
  });

  it('a tool name that is no tool is answered under that name, as a refusal', async () => {
    const { ask } = startSupervisor();
    const call: ScheduleCall = { kind: 'tool', sessionId: 's1', name: 'schedule_snooze', args: {} };
    const reply = await ask(call);
    expect(callOp(call)).toBe('schedule_snooze');
    expect(reply).toMatchObject({ op: 'schedule_snooze', ok: true, value: { code: expect.any(String) } });
  });

  it('callOp names each kind of call as its reply does', () => {
    expect(callOp({ kind: 'tool', sessionId: 's', name: 'schedule_create', args: {} })).toBe('schedule_create');
    expect(callOp({ kind: 'remote', method: 'reanchor', request: { all: true } })).toBe('remote.reanchor');
    expect(callOp({ kind: 'archive', method: 'sessionStop', sessionId: 's' })).toBe('archive.sessionStop');
    expectTypeOf(callOp({ kind: 'remote', method: 'pause' } as const)).toEqualTypeOf<'remote.pause'>();
  });
});

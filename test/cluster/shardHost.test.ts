// Hosts sharing shards, with the transport left out: each shard's domain is one memory storage
// (which refuses a second open, as a fenced database refuses a second owner's commits), and a
// router that hands a call to whichever Host holds the Session's shard. A call made at any Host
// gets the answer the owner gives; a refused call is refused alike; a rejected one rejects with
// the same code at the caller. A shard handed over is closed by its old owner (after the delivery
// in flight) before the new one opens it, which restores its tasks and delivers them; a call that
// arrived during the hand-over runs at the new owner.
import { MemoryStorage } from '../../src/adapters/memoryStorage.ts';
import type { RoutedAnswer, RoutedCall } from '../../src/cluster/routedCall.ts';
import { ShardHost } from '../../src/cluster/shardHost.ts';
import { ScheduleError } from '../../src/domain/errors.ts';
import { createScheduleService } from '../../src/service.ts';
import { createFakeSessions, createManualClock } from '../../src/testing.ts';
import { waitUntil } from '../support/waitUntil.ts';

const T0 = '2030-01-01T08:00:00.000Z';
const quiet = { warn() {}, error() {} };

/** Sessions `a…` are in shard 0, every other Session in shard 1. */
const shardOf = (sessionId: string): number => (sessionId.startsWith('a') ? 0 : 1);

function cluster() {
  const clock = createManualClock(T0);
  const sessions = createFakeSessions();
  const domains = [new MemoryStorage(), new MemoryStorage()];
  const hosts = new Map<string, ShardHost>();
  const routed: Array<{ from: string; call: RoutedCall }> = [];
  const owner = (shard: number): ShardHost | undefined => [...hosts.values()].find((h) => h.epochOf(shard) !== undefined);
  const host = (name: string): ShardHost => {
    const h = new ShardHost({
      shardOf,
      logger: quiet,
      openShard: (shard) => createScheduleService({ sessions, clock, logger: quiet, storage: domains[shard] as MemoryStorage }),
      route: async (call): Promise<RoutedAnswer> => {
        routed.push({ from: name, call });
        // A call for a shard between owners waits for the next one, as a routed call waits to be claimed.
        const shard = shardOf(call.sessionId);
        await waitUntil(() => owner(shard) !== undefined, `a Host to take shard ${shard}`);
        return (owner(shard) as ShardHost).execute(call);
      },
    });
    hosts.set(name, h);
    return h;
  };
  return { clock, sessions, domains, host, routed, hosts };
}

/** A one-shot reminder in a minute, created through `host` in Session `b-session` (shard 1). */
const createAt = (host: ShardHost, title: string, prompt: string): Promise<unknown> =>
  host.dispatch({ kind: 'tool', sessionId: 'b-session', name: 'schedule_create', args: { title, prompt, after_seconds: 60 } });

/** `host`'s answer (or rejection) to a Session id too long to accept. */
const tooLongSession = (host: ShardHost): Promise<unknown> =>
  host.dispatch({ kind: 'tool', sessionId: `b${'x'.repeat(5000)}`, name: 'schedule_list', args: {} }).catch((e: unknown) => e);

const hosts: ShardHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
});

test("a call made at any Host gets the owner's answer; refusals and rejections travel unchanged", async () => {
  const c = cluster();
  const a = c.host('A');
  const b = c.host('B');
  hosts.push(a, b);
  a.acquired(0, 1);
  b.acquired(1, 1);
  const created = await createAt(a, 'Stand-up', 'join the stand-up');
  expect(created).toMatchObject({ id: 'sch_1', title: 'Stand-up' });
  expect(c.routed.map((r) => `${r.from} ${r.call.kind} ${r.call.sessionId}`)).toEqual(['A tool b-session']);
  // Stored in shard 1's domain, which host B holds.
  expect(await b.dispatch({ kind: 'remote.list', sessionId: 'b-session', request: { sessionId: 'b-session' } })).toMatchObject([
    { id: 'sch_1' },
  ]);
  const refused = await a.dispatch({ kind: 'tool', sessionId: 'b-session', name: 'schedule_create', args: { title: 'x', prompt: '' } });
  expect(refused).toMatchObject({ code: 'invalid_prompt' });
  // A malformed Session id rejects at the owner; the caller sees the same rejection.
  const direct = await tooLongSession(b);
  const routed = await tooLongSession(a);
  expect(direct).toBeInstanceOf(ScheduleError);
  expect(routed).toBeInstanceOf(ScheduleError);
  expect((routed as ScheduleError).code).toBe((direct as ScheduleError).code);
  expect((routed as ScheduleError).message).toBe((direct as ScheduleError).message);
});

test('a handed-over shard restores at its new owner, which delivers its reminders', async () => {
  const c = cluster();
  const a = c.host('A');
  const b = c.host('B');
  hosts.push(a, b);
  a.acquired(0, 1);
  a.acquired(1, 1);
  await createAt(a, 'Tea', 'make the tea');
  expect(c.routed).toHaveLength(0);
  await a.release(1);
  expect([...a.held().keys()]).toEqual([0]);
  b.acquired(1, 2);
  expect(b.epochOf(1)).toBe(2);
  const listed = await a.dispatch({ kind: 'remote.list', sessionId: 'b-session', request: { sessionId: 'b-session' } });
  expect(listed).toMatchObject([{ id: 'sch_1', title: 'Tea' }]);
  await c.clock.advance(60_000);
  await b.whenIdle();
  expect(c.sessions.messages('b-session').map((m) => m.text)).toEqual([expect.stringContaining('make the tea')]);
  expect(await b.dispatch({ kind: 'remote.list', sessionId: 'b-session', request: { sessionId: 'b-session' } })).toEqual([]);
});

test('a call made while its shard is handed over runs at the new owner', async () => {
  const c = cluster();
  const a = c.host('A');
  const b = c.host('B');
  hosts.push(a, b);
  a.acquired(1, 1);
  const releasing = a.release(1);
  const created = createAt(a, 'Post', 'fetch the post');
  await releasing;
  b.acquired(1, 2);
  expect(await created).toMatchObject({ id: 'sch_1', title: 'Post' });
  expect(await b.dispatch({ kind: 'remote.list', sessionId: 'b-session', request: { sessionId: 'b-session' } })).toMatchObject([
    { id: 'sch_1' },
  ]);
});

test('a closed Host refuses calls and holds nothing', async () => {
  const c = cluster();
  const a = c.host('A');
  a.acquired(0, 1);
  await a.close();
  expect(a.held().size).toBe(0);
  await expect(a.dispatch({ kind: 'remote.list', sessionId: 'a-1', request: { sessionId: 'a-1' } })).rejects.toMatchObject({
    code: 'internal_error',
  });
});

describe('terms of holding a shard', () => {
  it('a lost term commits nothing from the moment it is lost, even when the shard is taken back at the same epoch, and the next term opens only after it closed', async () => {
    const events: string[] = [];
    const terms: Array<() => boolean> = [];
    const host = new ShardHost({
      shardOf,
      logger: quiet,
      openShard: async (shard, epoch, current) => {
        const term = terms.push(current);
        events.push(`open ${shard}@${epoch} term ${term}`);
        const service = await createScheduleService({ sessions: createFakeSessions(), logger: quiet, storage: new MemoryStorage() });
        const close = service.close.bind(service);
        return Object.assign(service, {
          close: async () => {
            events.push(`closing term ${term} (current: ${current()})`);
            await new Promise((resolve) => setImmediate(resolve));
            await close();
            events.push(`closed term ${term}`);
          },
        });
      },
      route: async () => ({ error: { code: 'persistence_uncertain', message: 'not used' } }),
    });
    hosts.push(host);
    host.acquired(7, 1);
    await host.whenIdle();
    expect(terms[0]?.()).toBe(true);

    const lost = host.lost(7);
    // The term ended the moment it was lost: its fence names no epoch while its service closes.
    expect(terms[0]?.()).toBe(false);
    host.acquired(7, 1);
    expect(host.held()).toEqual(new Map([[7, 1]]));
    await lost;
    await host.whenIdle();
    expect(events).toEqual(['open 7@1 term 1', 'closing term 1 (current: false)', 'closed term 1', 'open 7@1 term 2']);
    expect([terms[0]?.(), terms[1]?.()]).toEqual([false, true]);

    // A released term stays current while it records its work in flight, then ends.
    await host.release(7);
    expect(events.at(-2)).toBe('closing term 2 (current: true)');
    expect(terms[1]?.()).toBe(false);
  });
});

// The call router, registered for the real server (`npm run test:postgres`) and for PGlite (in
// `npm test`): a call routed from one Host to the shard's owner runs once and its reply (or its
// ScheduleError) comes back; a Session's calls run one at a time in the order each caller routed
// them; each owner runs only its own shards' calls; a call no Host takes is withdrawn at the
// timeout with nothing run; a call whose owner lost the shard before answering is answered
// `persistence_uncertain` by the next owner (which runs the calls handed back unstarted), or by
// the same Host restarted; and replies still arrive when notifications are lost, or the
// listening connection is.
import {
  CallNotRunError,
  type CallRouter,
  type CallRouterOptions,
  callRouter,
  type NotificationListener,
  poolListener,
} from '../../src/adapters/postgres/callRouter.ts';
import { type NamedStatement, type SqlPool, statementText } from '../../src/adapters/postgres/driver.ts';
import { migrate } from '../../src/adapters/postgres/migrations.ts';
import { ScheduleError } from '../../src/domain/errors.ts';
import { randomSchema, run } from './postgresHarness.ts';
import { failure, sessionIn } from './postgresLeases.ts';

/** The pools of one backend, and how its routers receive notifications (undefined: the router's default). */
export interface RouterBackend {
  readonly pool: SqlPool;
  readonly admin: SqlPool;
  readonly schemas: string[];
  readonly listen: (() => NotificationListener) | undefined;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A listener that listens but never delivers a notification. */
const deaf: NotificationListener = async () => async () => undefined;

/** A pool that records each statement run through it (with the rows it answered) and counts those in flight. */
function tracedPool(pool: SqlPool): { pool: SqlPool; statements: { text: string; rows: number }[]; inFlight: () => number } {
  const statements: { text: string; rows: number }[] = [];
  let inFlight = 0;
  return {
    statements,
    inFlight: () => inFlight,
    pool: {
      connect: async () => {
        const client = await pool.connect();
        return {
          query: async (statement: string | NamedStatement, values?: readonly unknown[]) => {
            inFlight++;
            try {
              const result = await client.query(statement, values);
              statements.push({ text: statementText(statement), rows: result.rows.length });
              return result;
            } finally {
              inFlight--;
            }
          },
          release: (error?: Error | boolean) => client.release(error),
        };
      },
      end: () => pool.end(),
    },
  };
}

/** A promise `gate` that settles when `open()` is called. */
function gated(): { gate: Promise<void>; open: () => void } {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { gate, open };
}

/** Waits until `condition()` holds, looking every 10 ms (at most 5 s). */
async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await condition()) return;
    await sleep(10);
  }
  throw new Error('the condition did not come true within 5 s');
}

/** Registers the call router tests for one backend. */
export function describeCallRouter(name: string, backend: () => RouterBackend): void {
  const routers: CallRouter[] = [];
  afterEach(async () => {
    for (const router of routers.splice(0)) await router.stop();
  });

  const schemaOf = async () => {
    const schema = randomSchema();
    backend().schemas.push(schema);
    const client = await backend().admin.connect();
    try {
      await migrate(client, schema);
    } finally {
      client.release();
    }
    return schema;
  };
  /** Gives `hostId` the leases of `shards` (a new epoch each) and answers shard → epoch. */
  const own = async (schema: string, hostId: string, shards: readonly number[]) => {
    const result = await run(
      backend().admin,
      `update "${schema}".shard_leases set owner = $1, epoch = epoch + 1, expires_at = now() + interval '1 hour'
       where shard = any($2::smallint[]) returning shard, epoch::int as epoch`,
      [hostId, shards],
    );
    return new Map(result.rows.map((r) => [Number(r.shard), Number(r.epoch)]));
  };
  /** Host `d` takes `shard` over and runs the calls it claims, noting each in `ranOn` as `d:<request>`. */
  const nextOwner = async (schema: string, shard: number, ranOn: string[]) => {
    const epochs = await own(schema, 'd', [shard]);
    return routerOf(schema, {
      hostId: 'd',
      owns: (s) => epochs.get(s),
      execute: async (routed) => {
        ranOn.push(`d:${String(routed.request)}`);
        return 'd answered';
      },
    });
  };
  const rowsOf = async (schema: string) =>
    (await run(backend().admin, `select id::int as id, status, claimed_by from "${schema}".routed_calls order by id`)).rows;
  const routerOf = (schema: string, options: Partial<CallRouterOptions> & Pick<CallRouterOptions, 'hostId'>) => {
    const listen = backend().listen?.();
    const router = callRouter({
      pool: backend().pool,
      schema,
      owns: () => undefined,
      execute: async () => null,
      timeoutMs: 5_000,
      pollMs: 100,
      ...(listen === undefined ? {} : { listen }),
      ...options,
    });
    routers.push(router);
    return router;
  };

  /** Host A, started as the owner of `shard`, answering each call with its request; `options` sets how it listens and looks. */
  const echoOwner = async (schema: string, shard: number, options: Partial<CallRouterOptions>) => {
    const epochs = await own(schema, 'a', [shard]);
    const a = routerOf(schema, { hostId: 'a', owns: (s) => epochs.get(s), execute: async (call) => call.request, ...options });
    await a.start();
    return a;
  };

  /**
   * A call routed by Host B (looking every `pollMs`) to Host A, the owner of `shard`, whose
   * execution waits until `open()`; answered once A has claimed it.
   */
  const stuckCall = async (schema: string, shard: number, pollMs: number) => {
    const epochs = await own(schema, 'a', [shard]);
    const { gate, open } = gated();
    const a = routerOf(schema, {
      hostId: 'a',
      owns: (s) => epochs.get(s),
      execute: async () => {
        await gate;
        return 'late';
      },
    });
    await a.start();
    const b = routerOf(schema, { hostId: 'b', pollMs });
    const call = failure(b.route(sessionIn(shard), 'x'));
    await until(async () => (await rowsOf(schema)).some((r) => r.status === 'claimed'));
    return { epochs, call, open };
  };

  describe(`the call router on ${name}`, () => {
    it('a call routed from Host B to the owner A runs once on A; its reply, or its ScheduleError, comes back and the row is gone soon after', async () => {
      const schema = await schemaOf();
      const epochs = await own(
        schema,
        'a',
        Array.from({ length: 256 }, (_, i) => i),
      );
      const ran: { host: string; request: unknown; epoch: number }[] = [];
      const a = routerOf(schema, {
        hostId: 'a',
        owns: (shard) => epochs.get(shard),
        execute: async (call) => {
          ran.push({ host: 'a', request: call.request, epoch: call.epoch });
          const request = call.request as { op: string };
          if (request.op === 'fail') throw new ScheduleError('schedule_not_found', 'No task sch_9 in this Session.');
          return { echoed: call.request, session: call.sessionId, keys: { z: 1, a: 2 } };
        },
      });
      await a.start();
      const b = routerOf(schema, { hostId: 'b' });
      const session = sessionIn(7);
      const reply = await b.route(session, { op: 'list', text: 'nul \u0000 and \ud800 kept' });
      expect(reply).toEqual({ echoed: { op: 'list', text: 'nul \u0000 and \ud800 kept' }, session, keys: { z: 1, a: 2 } });
      expect(Object.keys((reply as { keys: object }).keys)).toEqual(['z', 'a']);
      expect(ran).toEqual([{ host: 'a', request: { op: 'list', text: 'nul \u0000 and \ud800 kept' }, epoch: epochs.get(7) }]);
      const failed = await failure(b.route(session, { op: 'fail' }));
      expect(failed).toMatchObject({ code: 'schedule_not_found', message: 'No task sch_9 in this Session.' });
      expect(failed.error).toBeInstanceOf(ScheduleError);
      expect(ran).toHaveLength(2);
      // A reply that came in its notification leaves the row to be deleted shortly after, with others.
      await until(async () => (await rowsOf(schema)).length === 0);
    });

    it('a request that is not JSON, or a Session id text cannot hold, is refused before anything is sent', async () => {
      const schema = await schemaOf();
      const b = routerOf(schema, { hostId: 'b' });
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      const holey: unknown[] = [1];
      holey[2] = 3;
      const bad: [unknown, string][] = [
        [{ at: new Date(0) }, 'the request.at is a Date object'],
        [{ n: Number.NaN }, 'the request.n is NaN'],
        [{ f: () => 1 }, 'the request.f is a function'],
        [{ u: undefined }, 'the request.u is undefined'],
        [holey, 'the request[1] is a hole'],
        [{ n: 1n }, 'the request.n is a bigint'],
        [cyclic, 'the request.self refers back to itself'],
      ];
      for (const [request, problem] of bad) {
        const refused = await failure(b.route(sessionIn(1), request as never));
        expect(refused.code).toBe('invalid_selector');
        expect(refused.message).toBe(`A routed call's request must be a JSON value, but ${problem}; nothing was sent.`);
      }
      expect((await failure(b.route('nul\u0000', {}))).code).toBe('invalid_selector');
      expect((await failure(b.route(7 as never, {}))).code).toBe('invalid_selector');
      expect(await rowsOf(schema)).toEqual([]);
    });

    it("50 calls of one Session from two callers at once: each runs once, one at a time, each caller's in the order it routed them", async () => {
      const schema = await schemaOf();
      const epochs = await own(schema, 'a', [3]);
      const ran: string[] = [];
      let running = 0;
      let overlapped = false;
      const a = routerOf(schema, {
        hostId: 'a',
        owns: (shard) => epochs.get(shard),
        execute: async (call) => {
          running++;
          if (running > 1) overlapped = true;
          const { caller, n } = call.request as { caller: string; n: number };
          ran.push(`${caller}${n}`);
          await sleep(n % 3);
          running--;
          return { done: `${caller}${n}` };
        },
      });
      await a.start();
      const b = routerOf(schema, { hostId: 'b' });
      const c = routerOf(schema, { hostId: 'c' });
      const session = sessionIn(3);
      const calls = Array.from({ length: 25 }, (_, n) => n);
      const replies = await Promise.all([
        ...calls.map((n) => b.route(session, { caller: 'b', n })),
        ...calls.map((n) => c.route(session, { caller: 'c', n })),
      ]);
      expect(replies).toEqual([...calls.map((n) => ({ done: `b${n}` })), ...calls.map((n) => ({ done: `c${n}` }))]);
      expect(overlapped).toBe(false);
      expect([...ran].sort()).toEqual([...calls.map((n) => `b${n}`), ...calls.map((n) => `c${n}`)].sort());
      for (const caller of ['b', 'c']) {
        expect(ran.filter((r) => r.startsWith(caller))).toEqual(calls.map((n) => `${caller}${n}`));
      }
    });

    it("two owners of different shards: each runs only its own shard's calls, under its own epoch", async () => {
      const schema = await schemaOf();
      const epochsA = await own(schema, 'a', [10]);
      await own(schema, 'x', [20]);
      const epochsD = await own(schema, 'd', [20]);
      const ran: string[] = [];
      const owner = (hostId: string, epochs: Map<number, number>) =>
        routerOf(schema, {
          hostId,
          owns: (shard) => epochs.get(shard),
          execute: async (call) => {
            ran.push(`${hostId}:${call.shard}@${call.epoch}`);
            return hostId;
          },
        });
      await owner('a', epochsA).start();
      await owner('d', epochsD).start();
      const b = routerOf(schema, { hostId: 'b' });
      expect(await Promise.all([b.route(sessionIn(10), 1), b.route(sessionIn(20), 2), b.route(sessionIn(10), 3)])).toEqual(['a', 'd', 'a']);
      expect([...ran].sort()).toEqual(['a:10@1', 'a:10@1', 'd:20@2']);
    });

    it('a call for a shard no Host owns is withdrawn at the timeout: CallNotRunError, nothing ran, no row left', async () => {
      const schema = await schemaOf();
      const epochs = await own(schema, 'a', [1]);
      let ran = 0;
      const a = routerOf(schema, {
        hostId: 'a',
        owns: (shard) => epochs.get(shard),
        execute: async () => {
          ran++;
          return null;
        },
      });
      await a.start();
      const b = routerOf(schema, { hostId: 'b', timeoutMs: 300 });
      const withdrawn = await failure(b.route(sessionIn(2), { op: 'get' }));
      expect(withdrawn.error).toBeInstanceOf(CallNotRunError);
      expect(withdrawn.code).toBe('owner_unavailable');
      expect(withdrawn.message).toBe(
        'The call routed to the owner of shard 2 was not taken by any Host within 300 ms and was withdrawn; nothing ran.',
      );
      expect(await rowsOf(schema)).toEqual([]);
      // The shard's owner arriving later finds nothing to run.
      epochs.set(2, (await own(schema, 'a', [2])).get(2) ?? 0);
      await a.claimPending();
      expect(ran).toBe(0);
    });

    it("a call whose owner lost the shard before answering is answered persistence_uncertain by the next owner's claimPending, never run again; the unstarted one is run by it", async () => {
      const schema = await schemaOf();
      const epochsA = await own(schema, 'a', [5]);
      const { gate, open } = gated();
      const ranOn: string[] = [];
      const a = routerOf(schema, {
        hostId: 'a',
        owns: (shard) => epochsA.get(shard),
        execute: async (call) => {
          ranOn.push(`a:${String(call.request)}`);
          await gate;
          return 'a answered';
        },
      });
      await a.start();
      // The caller looks at its calls only when notified, so the answer comes from the next owner.
      const b = routerOf(schema, { hostId: 'b', pollMs: 60_000 });
      const session = sessionIn(5);
      const first = failure(b.route(session, 'first'));
      await until(() => ranOn.length === 1);
      const second = b.route(session, 'second');
      await until(async () => (await rowsOf(schema)).filter((r) => r.status === 'claimed').length === 2);
      const stopping = a.stop();
      await until(async () => (await rowsOf(schema)).some((r) => r.status === 'pending'));
      const d = await nextOwner(schema, 5, ranOn);
      await d.claimPending();
      const lost = await first;
      expect(lost.code).toBe('persistence_uncertain');
      expect(lost.message).toBe(
        'The call routed to the owner of shard 5 was taken by host "a" at epoch 1, which lost the shard before answering; it may or may not have run.',
      );
      expect(await second).toBe('d answered');
      open();
      await stopping;
      expect(ranOn).toEqual(['a:first', 'd:second']);
      // The caller deletes the row of the reply it took from a notification by the time it stops.
      await b.stop();
      expect(await rowsOf(schema)).toEqual([]);
    });

    it('a Host restarted under the same id and lease epoch answers the calls its earlier run claimed persistence_uncertain', async () => {
      const schema = await schemaOf();
      const { epochs, call, open } = await stuckCall(schema, 4, 60_000);
      let ran = 0;
      const restarted = routerOf(schema, {
        hostId: 'a',
        owns: (shard) => epochs.get(shard),
        execute: async () => {
          ran++;
          return 'again';
        },
      });
      await restarted.claimPending();
      expect(await call).toMatchObject({ code: 'persistence_uncertain' });
      open();
      expect(ran).toBe(0);
    });

    it('the caller itself ends a call whose claimer lost the shard when no Host takes it over', async () => {
      const schema = await schemaOf();
      const { call, open } = await stuckCall(schema, 6, 50);
      await run(backend().admin, `update "${schema}".shard_leases set owner = null, expires_at = '-infinity' where shard = 6`);
      expect(await call).toMatchObject({ code: 'persistence_uncertain' });
      open();
      expect(await rowsOf(schema)).toEqual([]);
    });

    it('with every notification lost, calls are still claimed and answered by polling', async () => {
      const schema = await schemaOf();
      await echoOwner(schema, 8, { listen: deaf, pollMs: 30 });
      const b = routerOf(schema, { hostId: 'b', listen: deaf, pollMs: 30 });
      expect(await Promise.all([b.route(sessionIn(8), 'one'), b.route(sessionIn(8), ['two'])])).toEqual(['one', ['two']]);
    });

    it('a poll that reads the last reply reads nothing after it, and a router stopped then has no statement in flight', async () => {
      const schema = await schemaOf();
      await echoOwner(schema, 8, { listen: deaf, pollMs: 30 });
      const traced = tracedPool(backend().pool);
      const b = routerOf(schema, { hostId: 'b', listen: deaf, pollMs: 30, pool: traced.pool });
      expect(await b.route(sessionIn(8), 'one')).toBe('one');
      await b.stop();
      expect(traced.inFlight()).toBe(0);
      const answeredAt = traced.statements.findLastIndex((s) => s.text.includes("status = 'answered' returning") && s.rows > 0);
      expect(answeredAt).toBeGreaterThanOrEqual(0);
      expect(traced.statements.slice(answeredAt + 1)).toEqual([]);
    });

    it('during a rebalance a call waits for the next owner: routed while no Host holds its shard, it is answered by the Host that takes it, once that Host has opened it', async () => {
      const schema = await schemaOf();
      const b = routerOf(schema, { hostId: 'b', timeoutMs: 10_000 });
      const call = b.route(sessionIn(12), 'while moving');
      await until(async () => (await rowsOf(schema)).some((r) => r.status === 'pending'));
      // The shard is taken, and its service is still opening when the call is claimed.
      const epochs = await own(schema, 'c', [12]);
      const opening = gated();
      const c = routerOf(schema, {
        hostId: 'c',
        owns: (shard) => epochs.get(shard),
        execute: async (routed) => {
          await opening.gate;
          return `c ran ${String(routed.request)}`;
        },
      });
      await c.start();
      await until(async () => (await rowsOf(schema)).some((r) => r.status === 'claimed'));
      opening.open();
      expect(await call).toBe('c ran while moving');
    });

    it('an owner that gives its shard up hands the calls it claimed and has not begun back; the next owner runs them and the caller never hears the shard moved', async () => {
      const schema = await schemaOf();
      const epochsA = await own(schema, 'a', [13]);
      const running = gated();
      const ranOn: string[] = [];
      const a = routerOf(schema, {
        hostId: 'a',
        owns: (shard) => epochsA.get(shard),
        execute: async (routed) => {
          ranOn.push(`a:${String(routed.request)}`);
          await running.gate;
          return 'a answered';
        },
      });
      await a.start();
      const b = routerOf(schema, { hostId: 'b', pollMs: 50 });
      const session = sessionIn(13);
      const first = b.route(session, 'first');
      await until(() => ranOn.length === 1);
      const second = b.route(session, 'second');
      await until(async () => (await rowsOf(schema)).filter((r) => r.status === 'claimed').length === 2);
      // A gives the shard up (as a rebalance does) and its lease is freed while its first call still runs.
      epochsA.delete(13);
      await run(backend().admin, `update "${schema}".shard_leases set owner = null, expires_at = now() where shard = 13`);
      await a.claimPending();
      await until(async () => (await rowsOf(schema)).some((r) => r.status === 'pending'));
      running.open();
      expect(await first).toBe('a answered');
      const d = await nextOwner(schema, 13, ranOn);
      await d.start();
      expect(await second).toBe('d answered');
      expect(ranOn).toEqual(['a:first', 'd:second']);
    });

    it('a caller that cannot reach the database for a moment tries again within the deadline; the call is answered', async () => {
      const schema = await schemaOf();
      await echoOwner(schema, 14, {});
      let refused = 0;
      const flaky: SqlPool = {
        connect: () => {
          if (refused < 3) {
            refused++;
            return Promise.reject(Object.assign(new Error('timeout exceeded when trying to connect'), { code: 'ETIMEDOUT' }));
          }
          return backend().pool.connect();
        },
        end: async () => undefined,
      };
      const b = routerOf(schema, { hostId: 'b', pool: flaky, onError: () => undefined });
      expect(await b.route(sessionIn(14), 'through')).toBe('through');
      expect(refused).toBe(3);
    });

    it('a lost listening connection is opened again and the calls pending meanwhile are claimed', async () => {
      const schema = await schemaOf();
      const inner = backend().listen?.() ?? poolListener(backend().pool);
      let opened = 0;
      let drop: ((error: Error) => void) | undefined;
      const flaky: NotificationListener = async (channels, onNotification, onLost) => {
        opened++;
        if (opened === 1) {
          drop = onLost;
          return async () => undefined;
        }
        return inner(channels, onNotification, onLost);
      };
      const errors: unknown[] = [];
      await echoOwner(schema, 9, { listen: flaky, pollMs: 60_000, onError: (error) => errors.push(error) });
      const b = routerOf(schema, { hostId: 'b', pollMs: 60_000 });
      const answered = b.route(sessionIn(9), 'after the drop');
      await until(async () => (await rowsOf(schema)).length === 1);
      drop?.(new Error('Connection terminated unexpectedly'));
      expect(await answered).toBe('after the drop');
      expect(opened).toBe(2);
      expect(errors.map((e) => (e as Error).message)).toEqual(['Connection terminated unexpectedly']);
    });
  });
}

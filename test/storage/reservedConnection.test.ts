// The shard keeper's reserved connection: one connection of a pool, checked out on first use and
// held; callers take turns on it in call order; a connection released as broken, or one that
// raised an error while idle, is handed back to be discarded and the next caller gets a fresh
// one; a failed checkout is tried again on the next call; `end()` hands the connection back and
// never ends the pool.
import { EventEmitter } from 'node:events';
import type { SqlClient, SqlPool } from '../../src/adapters/postgres/driver.ts';
import { reservedConnection } from '../../src/adapters/postgres/reservedConnection.ts';

/** A fake pool whose clients log their queries and how they were released. */
function fakePool() {
  const log: string[] = [];
  const clients: Array<SqlClient & EventEmitter> = [];
  let failNext = false;
  let ended = false;
  const pool: SqlPool = {
    connect: async () => {
      if (failNext) {
        failNext = false;
        throw new Error('connect ECONNREFUSED');
      }
      const n = clients.length + 1;
      const client = Object.assign(new EventEmitter(), {
        query: async (text: string) => {
          log.push(`c${n}: ${text}`);
          return { rows: [], rowCount: 0 };
        },
        release: (error?: Error | boolean) => {
          log.push(`c${n} released${error instanceof Error ? ` broken (${error.message})` : ''}`);
        },
      });
      clients.push(client);
      return client;
    },
    end: async () => {
      ended = true;
    },
  };
  return { pool, log, clients, failOnce: () => (failNext = true), ended: () => ended };
}

describe('reservedConnection', () => {
  it('checks out one connection on first use, keeps it, and lets callers take turns in call order', async () => {
    const fake = fakePool();
    const reserved = reservedConnection(fake.pool);
    expect(fake.clients).toHaveLength(0);
    const first = await reserved.connect();
    const second = reserved.connect();
    const order: string[] = [];
    void second.then(() => order.push('second connected'));
    await first.query('select 1');
    order.push('first released');
    first.release();
    const next = await second;
    expect(order).toEqual(['first released', 'second connected']);
    await next.query('select 2');
    next.release();
    expect(fake.log).toEqual(['c1: select 1', 'c1: select 2']);
    await expect(first.query('select 3')).rejects.toThrow('query on a released connection');
  });

  it('replaces a connection released as broken or one that raised an error while idle', async () => {
    const fake = fakePool();
    const reserved = reservedConnection(fake.pool);
    const a = await reserved.connect();
    a.release(new Error('Connection terminated'));
    const b = await reserved.connect();
    await b.query('select 1');
    b.release();
    fake.clients[1]?.emit('error', new Error('socket closed'));
    const c = await reserved.connect();
    await c.query('select 2');
    c.release();
    expect(fake.log).toEqual([
      'c1 released broken (Connection terminated)',
      'c2: select 1',
      'c2 released broken (socket closed)',
      'c3: select 2',
    ]);
  });

  it('tries a failed checkout again on the next call, and end() hands the connection back without ending the pool', async () => {
    const fake = fakePool();
    const reserved = reservedConnection(fake.pool);
    fake.failOnce();
    await expect(reserved.connect()).rejects.toThrow('ECONNREFUSED');
    const a = await reserved.connect();
    await a.query('select 1');
    a.release();
    await reserved.end();
    expect(fake.log).toEqual(['c1: select 1', 'c1 released']);
    expect(fake.ended()).toBe(false);
    await expect(reserved.connect()).rejects.toThrow('The reserved connection was ended.');
  });
});

// The guarded pool: a client it hands out listens for `error` while checked out, so a socket that
// dies under a checked-out client fails the query instead of crashing the process (an
// EventEmitter's `error` with no listener throws); released cleanly, the client drops the
// listener again; the client's own `on` (notifications) stays reachable.
import { EventEmitter } from 'node:events';
import { guardedPool, type SqlPool } from '../../src/adapters/postgres/driver.ts';

function emitterPool() {
  const client = Object.assign(new EventEmitter(), {
    query: async () => ({ rows: [], rowCount: 0 }),
    release: (_error?: Error | boolean) => undefined,
  });
  const pool: SqlPool = { connect: async () => client, end: async () => undefined };
  return { client, pool };
}

describe('guardedPool', () => {
  it('keeps an error of a checked-out client from crashing the process, and drops its listener on a clean release', async () => {
    const { client, pool } = emitterPool();
    expect(() => client.emit('error', new Error('read ECONNRESET'))).toThrow('read ECONNRESET');
    const guarded = await guardedPool(pool).connect();
    expect(() => client.emit('error', new Error('read ECONNRESET'))).not.toThrow();
    guarded.release();
    expect(client.listenerCount('error')).toBe(0);
    const broken = await guardedPool(pool).connect();
    broken.release(new Error('Connection terminated'));
    // A client released as broken keeps listening until the pool has discarded it.
    expect(client.listenerCount('error')).toBe(1);
  });

  it('passes notifications through to the client', async () => {
    const { client, pool } = emitterPool();
    const guarded = (await guardedPool(pool).connect()) as unknown as EventEmitter;
    const heard: string[] = [];
    guarded.on('notification', (message: { channel: string }) => heard.push(message.channel));
    client.emit('notification', { channel: 'agent_schedule_changes' });
    expect(heard).toEqual(['agent_schedule_changes']);
  });
});

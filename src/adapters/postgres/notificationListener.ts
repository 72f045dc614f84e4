// How a Host hears notifications: the {@link NotificationListener} seam, and its default, a
// connection checked out of the pool for as long as it listens.
import { ScheduleError } from '../../domain/errors.ts';
import type { SqlPool } from './driver.ts';

/** The channel `<schema>_<suffix>`, cut to the 63 bytes PostgreSQL keeps of an identifier. */
export const channelName = (schema: string, suffix: string): string => `${schema}_${suffix}`.slice(0, 63);

/**
 * The channel a shard's number is notified on when calls may wait for its owner: a routed call's
 * insert, and a shard's hand-over (docs/cluster.md); the keepers' notices go there too (an offer,
 * `offered:<taker>`, and a Host's arrival, `joined:<host>`).
 */
export const callsChannel = (schema: string): string => channelName(schema, 'calls');

/**
 * Listens on `channels` on a connection of its own: `onNotification` for each notification,
 * `onLost` once when the connection is lost. Answers the function that stops listening.
 */
export type NotificationListener = (
  channels: readonly string[],
  onNotification: (channel: string, payload: string) => void,
  onLost: (error: Error) => void,
) => Promise<() => Promise<void>>;

interface NotifyingClient {
  on(event: 'notification', fn: (message: { channel: string; payload?: string }) => void): void;
  on(event: 'error' | 'end', fn: (error?: Error) => void): void;
}

/**
 * The default {@link NotificationListener}: checks a client out of `pool` for as long as it
 * listens (a `pg` `PoolClient`, which emits `notification`), and discards it when done.
 */
export function poolListener(pool: SqlPool): NotificationListener {
  return async (channels, onNotification, onLost) => {
    const client = await pool.connect();
    const events = client as unknown as Partial<NotifyingClient>;
    if (typeof events.on !== 'function') {
      client.release();
      throw new ScheduleError('internal_error', "The pool's clients cannot deliver notifications; give callRouter a `listen` function.");
    }
    let done = false;
    const end = (error: Error | true, report: boolean) => {
      if (done) return;
      done = true;
      client.release(error);
      if (report && error !== true) onLost(error);
    };
    events.on('notification', (message) => {
      if (!done) onNotification(message.channel, message.payload ?? '');
    });
    events.on('error', (error) => end(error ?? new Error('Connection terminated'), true));
    events.on('end', () => end(new Error('Connection terminated (the listening connection ended)'), true));
    try {
      for (const channel of channels) await client.query(`listen "${channel}"`);
    } catch (error) {
      end(true, false);
      throw error;
    }
    return async () => {
      if (done) return;
      await client.query('unlisten *').catch(() => undefined);
      end(true, false);
    };
  };
}

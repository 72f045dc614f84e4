// One connection of a pool held for one user alone, seen as a pool of its own: the shard keeper's
// heartbeats and renewals run on it, so they never wait in the pool's queue behind the commits
// and restores of the shard services (a renewal that waits there long enough loses the lease of
// a live Host). The connection is checked out on first use and kept; callers take turns on it
// (one statement sequence at a time, in call order). A caller that releases it as broken, or an
// error the connection raises while it waits between uses (its socket closed), makes the next
// caller check out a fresh one; `end()` hands it back to the pool and never ends the pool.
import type { NamedStatement, SqlClient, SqlPool, SqlResult } from './driver.ts';

/** A {@link SqlPool} over one connection of `pool`, checked out on first use and held until `end()`. */
export function reservedConnection(pool: SqlPool): SqlPool {
  let held: Promise<SqlClient> | undefined;
  let broken: Error | undefined;
  let turn: Promise<void> = Promise.resolve();
  let ended = false;

  /** Marks the held connection broken when its socket dies between queries. */
  const onError = (error: Error): void => {
    broken = error;
  };
  type Listening = { on?(event: 'error', fn: (error: Error) => void): void; off?(event: 'error', fn: (error: Error) => void): void };

  /** Hands a connection back, no longer listening here (the pool listens to it from then on). */
  const handBack = (client: SqlClient, error?: Error | boolean): void => {
    (client as unknown as Listening).off?.('error', onError);
    client.release(error);
  };

  /** Hands the held connection back to the pool (to be discarded when `error` is given). */
  const discard = async (error?: Error): Promise<void> => {
    const client = await held?.catch(() => undefined);
    held = undefined;
    broken = undefined;
    if (client !== undefined) handBack(client, error);
  };

  const checkOut = async (): Promise<SqlClient> => {
    if (broken !== undefined) await discard(broken);
    held ??= pool.connect().then(
      (client) => {
        // A pg client raises 'error' when its socket closes between queries; without a listener
        // the process would crash. The next caller then gets a fresh connection.
        (client as unknown as Listening).on?.('error', onError);
        return client;
      },
      (error: unknown) => {
        held = undefined;
        throw error;
      },
    );
    return held;
  };

  return {
    connect: async () => {
      if (ended) throw new Error('The reserved connection was ended.');
      let done!: () => void;
      const previous = turn;
      turn = new Promise<void>((resolve) => {
        done = resolve;
      });
      await previous;
      let client: SqlClient;
      try {
        client = await checkOut();
      } catch (error) {
        done();
        throw error;
      }
      let released = false;
      return {
        query: (text: string | NamedStatement, values?: readonly unknown[]): Promise<SqlResult> => {
          if (released) return Promise.reject(new Error('query on a released connection'));
          return client.query(text, values);
        },
        release: (error?: Error | boolean) => {
          if (released) return;
          released = true;
          if (error !== undefined && error !== false) {
            // A broken connection goes back to the pool to be discarded; the next caller gets a fresh one.
            held = undefined;
            broken = undefined;
            handBack(client, error);
          }
          done();
        },
      };
    },
    end: async () => {
      ended = true;
      await turn;
      await discard(broken);
    },
  };
}

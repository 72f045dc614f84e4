// A pool that counts the round trips made through it: every `query` on a client it hands out is
// one message to the server and one wait for its answer (node-postgres sends a client's next query
// only once the previous one is answered, and a text of several statements without parameters is
// still one message). Counts are deterministic where times are not, so tests assert them.
import { type SqlClient, type SqlPool, statementText } from '../../src/adapters/postgres/driver.ts';

/** One statement sent through a {@link countingPool}. */
export interface SentStatement {
  /** The text, with its whitespace collapsed. */
  readonly text: string;
}

export interface CountingPool {
  /** Hand this to the code under test. */
  readonly pool: SqlPool;
  /** Every statement sent since the last {@link CountingPool.reset}, in the order sent. */
  readonly sent: readonly SentStatement[];
  /** How many round trips since the last reset. */
  count(): number;
  /** Forgets what was sent so far. */
  reset(): void;
  /** The first words of each statement sent (`begin`, `select`, `with`, `insert`…), to read in a failing assertion. */
  summary(): string[];
}

/** Wraps `pool`; a client's `on`/`off` (notifications) stay reachable. */
export function countingPool(pool: SqlPool): CountingPool {
  let sent: SentStatement[] = [];
  const wrapped: SqlPool = {
    connect: async () => {
      const client = await pool.connect();
      const counted: SqlClient = {
        query: (text, values) => {
          sent.push({ text: statementText(text).replace(/\s+/g, ' ').trim() });
          return client.query(text, values);
        },
        release: (error) => client.release(error),
      };
      const events = client as unknown as { on?: unknown; off?: unknown };
      if (typeof events.on !== 'function') return counted;
      return Object.assign(counted, {
        on: (...args: unknown[]) => (events.on as (...a: unknown[]) => unknown).apply(client, args),
        off: (...args: unknown[]) => (events.off as (...a: unknown[]) => unknown).apply(client, args),
      });
    },
    end: () => pool.end(),
  };
  return {
    pool: wrapped,
    get sent() {
      return sent;
    },
    count: () => sent.length,
    reset: () => {
      sent = [];
    },
    summary: () => sent.map((s) => s.text.split(' ').slice(0, 3).join(' ')),
  };
}

// The small seam between the PostgreSQL storage and its driver: the part of a node-postgres
// `Pool` the storage uses (check out a client, run parameterised queries on it, release it), so
// the same storage code runs on `pg` against a server and, in tests, on an embedded PostgreSQL.
// Also the classification of driver failures: which ones mean the connection (and so the outcome
// of a statement in flight) was lost.

/** The result of one query, as node-postgres returns it. */
export interface SqlResult {
  readonly rows: readonly Record<string, unknown>[];
  readonly rowCount: number | null;
}

/**
 * A statement the server parses and plans once per connection and then only executes: node-postgres
 * prepares `query({ name, text, values })` the first time a connection sees `name`, and afterwards
 * sends only the name and the values.
 */
export interface NamedStatement {
  readonly name: string;
  readonly text: string;
  readonly values?: readonly unknown[];
}

/** One checked-out connection (a node-postgres `PoolClient`). */
export interface SqlClient {
  /** Runs `text` with `values` as its parameters, or a named statement with its own values. */
  query(text: string | NamedStatement, values?: readonly unknown[]): Promise<SqlResult>;
  /** Returns the connection to its pool; with an error (or `true`) the pool discards it. */
  release(error?: Error | boolean): void;
}

/** The text of a statement, named or not. */
export const statementText = (statement: string | NamedStatement): string => (typeof statement === 'string' ? statement : statement.text);

/** What the storage needs of a connection pool (a node-postgres `Pool` has it). */
export interface SqlPool {
  connect(): Promise<SqlClient>;
  end(): Promise<void>;
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  // SQLSTATE: the server shut the connection (admin_shutdown, crash_shutdown, cannot_connect_now)
  '57P01',
  '57P02',
  '57P03',
]);

const CONNECTION_MESSAGES =
  /Connection terminated|connection (?:was )?(?:closed|lost|ended)|Client has encountered a connection error|timeout exceeded when trying to connect|Query read timeout|not queryable|socket hang up/i;

/**
 * True when a driver failure means the connection is gone or could not be made (so the outcome of
 * a statement in flight cannot be known, and the connection must not be reused).
 */
export function isConnectionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (CONNECTION_CODES.has(code) || code.startsWith('08'))) return true;
  if (error instanceof AggregateError && error.errors.some(isConnectionFailure)) return true;
  return CONNECTION_MESSAGES.test(error.message);
}

/** The message of a failure, for error texts. */
export const reasonOf = (error: unknown): string => (error instanceof Error ? error.message || error.name : String(error));

const ignoreError = (): void => undefined;
const watchedPools = new WeakSet<object>();

/**
 * Makes a `pg.Pool` (anything with `on`; other pools are left as they are) listen for `error`, and
 * every client it connects listen for `error` from the moment it exists, for its whole life. A
 * connection the server ends emits `error` on its client; when that happens between two uses, or
 * in the very packet after the one that completed the connection (before the pool has handed the
 * client to anyone), nobody else is listening and the event would end the process. Callers learn
 * of the failure from their next query, which fails on the dead client; the pool drops an idle
 * one by itself. Registered once per pool.
 */
export function watchPoolErrors(pool: SqlPool): void {
  const events = pool as unknown as { on?(event: string, fn: (client: unknown) => void): unknown };
  if (typeof events.on !== 'function' || watchedPools.has(pool)) return;
  watchedPools.add(pool);
  events.on('error', ignoreError);
  events.on('connect', (client) => (client as { on?(event: 'error', fn: () => void): unknown }).on?.('error', ignoreError));
}

/**
 * `pool` with every client it hands out listening for `error` while checked out (and, for a
 * `pg.Pool`, every client listening for its whole life: {@link watchPoolErrors}). A `pg` client
 * whose socket dies emits `error`; the query in flight fails with it (which is how callers learn
 * of it), but with no listener the event itself would crash the process. A client released
 * cleanly drops the listener; one released as broken keeps it until the pool discards it. The
 * client's own `on`/`off` (notifications) stay reachable.
 */
export function guardedPool(pool: SqlPool): SqlPool {
  watchPoolErrors(pool);
  return {
    connect: async () => {
      const client = await pool.connect();
      const events = client as unknown as {
        on?(event: string, fn: (...args: never[]) => void): unknown;
        off?(event: string, fn: (...args: never[]) => void): unknown;
      };
      const ignore = () => undefined;
      events.on?.('error', ignore);
      const guarded: SqlClient = {
        query: (text, values) => client.query(text, values),
        release: (error) => {
          if (error === undefined || error === false) events.off?.('error', ignore);
          client.release(error);
        },
      };
      if (typeof events.on !== 'function') return guarded;
      return Object.assign(guarded, {
        on: (event: string, fn: (...args: never[]) => void) => events.on?.(event, fn),
        off: (event: string, fn: (...args: never[]) => void) => events.off?.(event, fn),
      });
    },
    end: () => pool.end(),
  };
}

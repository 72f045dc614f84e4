// Round trips to PostgreSQL counted where they leave a process: every `query` of a node-postgres
// client (a pool's `query` runs one too), BEGIN and COMMIT included, whichever pool sent it —
// the service's, the shard keeper's held connection, the listener's, or pg-boss's own pool (it
// loads the same `pg`). One text sent with several statements is one round trip, as on the wire.
import pg from 'pg';

let statements = 0;
let installed = false;

/** Starts counting (once per process); every later call answers the same counter. */
export function countStatements(): () => number {
  if (!installed) {
    installed = true;
    const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
    pg.Client.prototype.query = function counted(this: pg.Client, ...args: unknown[]) {
      statements++;
      return query.apply(this, args);
    } as typeof pg.Client.prototype.query;
  }
  return () => statements;
}

// Statements on the library's schema for the parts that are not the storage (leases, membership):
// the schema is migrated once, on first use (a failed migration is tried again next time); each
// statement runs on a client of the pool, and a driver failure becomes `persistence_uncertain`
// saying whether the change may have been made (the connection was lost) or not (refused).
import { isScheduleError, ScheduleError } from '../../domain/errors.ts';
import { isConnectionFailure, reasonOf, type SqlClient, type SqlPool, type SqlResult } from './driver.ts';
import { migrate } from './migrations.ts';

/** One-statement queries on a schema of a pool; see the file comment. */
export class SchemaQueries {
  private ready: Promise<void> | undefined;

  constructor(
    private readonly pool: SqlPool,
    private readonly schema: string,
    /** What a failed migration is reported as ("The shard leases could not open their schema"). */
    private readonly opening: string,
  ) {}

  /**
   * Runs one statement, after migrating the schema if no earlier call did.
   *
   * @throws ScheduleError `persistence_uncertain` starting with `what` when the database cannot be
   *   reached, lost the connection, or refused the statement; errors of the migration as it throws them.
   */
  async run(what: string, text: string, values: readonly unknown[]): Promise<SqlResult> {
    this.ready ??= this.withClient(this.opening, async (client) => {
      await migrate(client, this.schema);
    }).catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    await this.ready;
    return this.withClient(what, (client) => client.query(text, values));
  }

  private async withClient<T>(what: string, work: (client: SqlClient) => Promise<T>): Promise<T> {
    let client: SqlClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw new ScheduleError(
        'persistence_uncertain',
        `${what}: the database cannot be reached (${reasonOf(error)}); nothing was changed.`,
        {
          cause: error,
        },
      );
    }
    // A pg client whose socket closes emits 'error' besides failing its query; the failure is
    // reported through the query, so a listener must be there or the process would crash.
    const events = client as unknown as { on?(event: 'error', fn: () => void): void; off?(event: 'error', fn: () => void): void };
    const ignore = () => undefined;
    events.on?.('error', ignore);
    let broken: Error | undefined;
    try {
      return await work(client);
    } catch (error) {
      if (isScheduleError(error)) throw error;
      const lost = isConnectionFailure(error);
      if (lost) broken = error instanceof Error ? error : new Error(String(error));
      const outcome = lost
        ? `the database connection was lost (${reasonOf(error)}); the change may or may not have been made`
        : `the database refused it (${reasonOf(error)}); nothing was changed`;
      throw new ScheduleError('persistence_uncertain', `${what}: ${outcome}.`, { cause: error });
    } finally {
      if (broken === undefined) events.off?.('error', ignore);
      client.release(broken);
    }
  }
}

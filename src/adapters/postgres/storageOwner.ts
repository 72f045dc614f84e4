// The owner of a schema written by a plain (unfenced) PostgreSQL storage: one row in
// `<schema>.storage_owner` naming the storage that writes the schema — a random token, who it is
// (host name, pid, boot id and start time, application_name, backend pid) — with a lease by the
// database's clock. Two plain storages on one schema would each restore and deliver every task, so
// every reminder would go out twice; the second opener is refused with `storage_locked` instead.
//
// Why a row with a lease and not a session advisory lock held on a connection of its own: a
// session lock is lost with its connection, so a database blip (a terminated backend, a failover)
// would leave the schema unowned while the Host runs on, and a commit on another connection cannot
// tell, inside its own transaction, that the lock it relies on is still held. A row can be locked
// by the commit itself: each commit renews the row under its token in the commit's transaction
// (that row lock is held until it commits), so a takeover, which locks the row too, waits for the
// commit in flight and then finds a live lease — and a commit whose token was replaced writes
// nothing. It also needs no connection held for the storage's life (a pool of one connection, or
// PGlite, keeps working). What a lease costs — a holder that dies keeps the schema until its lease
// runs out — is avoided where it can be checked: a holder on this machine whose process no longer
// runs (by pid, boot id and start time) is taken over at once, as the file lock does.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { ScheduleError } from '../../domain/errors.ts';
import { nodeFileSystem } from '../fsSeam.ts';
import { mayBeRunning, ownIdentity, type ProcessIdentity } from '../processIdentity.ts';
import type { SqlClient } from './driver.ts';

/** How long an owner's lease lasts without renewal, in ms, by default. */
export const DEFAULT_OWNER_LEASE_MS = 15_000;

/** Who holds a schema, as its owner row records it. */
export interface SchemaHolder extends ProcessIdentity {
  /** The host name of the machine it runs on. */
  readonly host: string;
  /** The `application_name` of the connection that took the schema. */
  readonly applicationName: string;
  /** The server process of that connection (as `pg_stat_activity.pid` shows it). */
  readonly backendPid: number;
  /** When it took the schema (ISO 8601). */
  readonly since?: string;
}

/** Tokens of the owners this process holds (another storage of this process may still be open). */
const liveTokens = new Set<string>();

const describe = (holder: SchemaHolder): string =>
  `host ${holder.host}, pid ${holder.pid}, application_name ${JSON.stringify(holder.applicationName)}, backend pid ${holder.backendPid}${
    holder.since === undefined ? '' : `, since ${holder.since}`
  }`;

/**
 * Another plain storage writes the schema (in another process, or another storage of this one).
 * Its code is `storage_locked`: nothing is wrong with the data; the Host must close the other first.
 */
export class SchemaLockedError extends ScheduleError {
  readonly schema: string;
  readonly holder: SchemaHolder;

  constructor(schema: string, holder: SchemaHolder, lost = false) {
    super(
      'storage_locked',
      `${
        lost
          ? `The PostgreSQL schema ${JSON.stringify(schema)} was taken over by another schedule storage (${describe(holder)}) while this one's lease had run out; nothing was written.`
          : `The PostgreSQL schema ${JSON.stringify(schema)} is in use by another schedule storage: ${describe(holder)}.`
      } A plain postgresStorage is the only writer of its schema; running several Hosts on one schema is the cluster service's job (createClusterService from agent-schedule/postgres). Close the other Host first; one that died is taken over once its owner lease runs out, at once from its own machine.`,
    );
    this.name = 'SchemaLockedError';
    this.schema = schema;
    this.holder = holder;
  }
}

/** Reads an owner row's holder; a damaged one names nobody in particular. */
function holderOf(value: unknown, since?: unknown): SchemaHolder {
  const raw = (typeof value === 'string' ? (JSON.parse(value) as unknown) : value) as Record<string, unknown> | null;
  const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  const int = (v: unknown): number => (typeof v === 'number' && Number.isSafeInteger(v) ? v : 0);
  const boot = text(raw?.boot);
  const start = text(raw?.start);
  const when = since instanceof Date ? since.toISOString() : text(since);
  return {
    host: text(raw?.host) ?? '?',
    pid: int(raw?.pid),
    ...(boot === undefined ? {} : { boot }),
    ...(start === undefined ? {} : { start }),
    applicationName: text(raw?.applicationName) ?? '?',
    backendPid: int(raw?.backendPid),
    ...(when === undefined ? {} : { since: when }),
  };
}

/** One plain storage's claim on its schema; see the top of this file. */
export class StorageOwner {
  readonly token = randomBytes(12).toString('hex');

  constructor(
    private readonly schema: string,
    private readonly quoted: string,
    readonly leaseMs: number,
  ) {}

  /**
   * Takes the schema on `client`: when no storage holds it, its lease ran out, or its holder is a
   * process of this machine that no longer runs.
   *
   * @throws SchemaLockedError (`storage_locked`) naming the holder otherwise; driver errors pass through.
   */
  async take(client: SqlClient): Promise<void> {
    const self = await ownIdentity(nodeFileSystem);
    if (await this.takeFree(client, self)) return;
    await this.takeChecked(client, self);
  }

  /**
   * Takes the row in one statement when nobody holds it — given up by a clean close, or its lease
   * ran out — which is how most opens find it; false when the row is missing or another holder's
   * lease is live (then {@link takeChecked} decides). The update's condition is checked again on
   * the locked row, so of two openers at once only one takes it here.
   */
  private async takeFree(client: SqlClient, self: ProcessIdentity): Promise<boolean> {
    // Known as live before the commit lands, as in takeChecked.
    liveTokens.add(this.token);
    try {
      const taken = await client.query(
        `update ${this.quoted}.storage_owner
            set token = $1, since = now(), expires_at = now() + $3::bigint * interval '1 millisecond',
                holder = ($2::jsonb || jsonb_build_object('applicationName', current_setting('application_name'),
                                                          'backendPid', pg_backend_pid()))::json
          where token = '' or token = $1 or expires_at <= now()
          returning 1`,
        [this.token, JSON.stringify({ host: hostname(), ...self }), this.leaseMs],
      );
      if (taken.rows.length > 0) return true;
    } catch (error) {
      liveTokens.delete(this.token);
      throw error;
    }
    liveTokens.delete(this.token);
    return false;
  }

  /** Takes the schema in a transaction of its own, creating the row and checking a live holder's process. */
  private async takeChecked(client: SqlClient, self: ProcessIdentity): Promise<void> {
    const q = this.quoted;
    await client.query('begin');
    try {
      // The row exists from here on, and only one opener at a time looks at it.
      await client.query(
        `insert into ${q}.storage_owner (token, holder, expires_at) values ('', '{}', '-infinity') on conflict (singleton) do nothing`,
      );
      // The row, locked, and this connection's own backend and application name (what a holder records).
      const found = await client.query(
        `select token, holder::text as holder, since, expires_at > now() as live,
                pg_backend_pid() as pid, current_setting('application_name') as app
           from ${q}.storage_owner for update`,
      );
      const current = found.rows[0];
      const token = String(current?.token ?? '');
      if (token !== '' && token !== this.token && current?.live === true) {
        const holder = holderOf(current.holder, current.since);
        if (await this.mayHold(holder, token, self)) throw new SchemaLockedError(this.schema, holder);
      }
      const holder = {
        host: hostname(),
        ...self,
        applicationName: String(current?.app ?? ''),
        backendPid: Number(current?.pid ?? 0),
      };
      await client.query(
        `update ${q}.storage_owner set token = $1, holder = $2::json, since = now(),
           expires_at = now() + $3::bigint * interval '1 millisecond'`,
        [this.token, JSON.stringify(holder), this.leaseMs],
      );
      // Known as live before the commit lands: another storage of this process that reads the row
      // the moment it is committed must find its holder running.
      liveTokens.add(this.token);
      await client.query('commit');
    } catch (error) {
      liveTokens.delete(this.token);
      await client.query('rollback').catch(() => undefined);
      throw error;
    }
  }

  /** Whether the holder of a live lease may still be running (what cannot be checked may). */
  private async mayHold(holder: SchemaHolder, token: string, self: ProcessIdentity): Promise<boolean> {
    if (holder.host !== hostname()) return true;
    if (holder.pid === process.pid && (holder.start === undefined || holder.start === self.start)) return liveTokens.has(token);
    return mayBeRunning(nodeFileSystem, holder, self);
  }

  /**
   * Inside a commit's transaction, before it writes: renews the lease under this storage's token
   * and keeps the row locked until the transaction ends, so no takeover can pass the commit.
   *
   * @throws SchemaLockedError when another storage took the schema (the caller rolls back).
   */
  async check(client: SqlClient): Promise<void> {
    if (await this.renew(client)) return;
    const found = await client.query(`select holder::text as holder, since from ${this.quoted}.storage_owner`);
    throw new SchemaLockedError(this.schema, holderOf(found.rows[0]?.holder ?? null, found.rows[0]?.since), true);
  }

  /** Renews the lease under this storage's token; false when another storage holds the schema now. */
  async renew(client: SqlClient): Promise<boolean> {
    const renewed = await client.query(
      `update ${this.quoted}.storage_owner set expires_at = now() + $2::bigint * interval '1 millisecond' where token = $1 returning 1`,
      [this.token, this.leaseMs],
    );
    return renewed.rows.length > 0;
  }

  /** Gives the schema up, so the next opener takes it at once (when this fails, the lease runs out on its own). */
  async give(client: SqlClient): Promise<void> {
    liveTokens.delete(this.token);
    await client.query(`update ${this.quoted}.storage_owner set token = '', expires_at = '-infinity' where token = $1`, [this.token]);
  }

  /** Forgets the claim in this process without telling the database (it could not be reached). */
  forget(): void {
    liveTokens.delete(this.token);
  }
}

// What the PostgreSQL storage tests share: a pool over an embedded PGlite database (one
// connection, checked out by one caller at a time, as a real session), random schema names
// dropped after each test, a conformance harness whose stores seed rows as given (bypassing the
// codec, so bad rows reach the table) and read the document back through a fresh storage.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { NotificationListener } from '../../src/adapters/postgres/callRouter.ts';
import { type NamedStatement, type SqlClient, type SqlPool, type SqlResult, statementText } from '../../src/adapters/postgres/driver.ts';
import { migrate } from '../../src/adapters/postgres/migrations.ts';
import { type PostgresStorageOptions, postgresStorage } from '../../src/adapters/postgres/postgresStorage.ts';
import { encodeDocument } from '../../src/domain/codec/index.ts';
import { shardOf } from '../../src/domain/tasks/sessionShard.ts';
import type { ScheduleStorage } from '../../src/ports.ts';
import type { StorageHarness, Store } from './conformance.ts';

/** The real server the server tests use (`PG_TEST_URL` overrides). */
export const SERVER_URL = process.env.PG_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A fresh schema name no other test uses. */
export const randomSchema = (): string => `as_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 10)}`;

/** A pool over one PGlite database: `connect()` waits until the previous client was released. */
export function pglitePool(db: PGlite): SqlPool {
  let turn: Promise<void> = Promise.resolve();
  return {
    connect: async () => {
      let release!: () => void;
      const previous = turn;
      turn = new Promise<void>((resolve) => {
        release = resolve;
      });
      await previous;
      let released = false;
      const client: SqlClient = {
        query: async (statement: string | NamedStatement, given?: readonly unknown[]): Promise<SqlResult> => {
          if (released) throw new Error('query on a released PGlite client');
          // PGlite prepares every parameterised query itself: a named statement runs as its text.
          const text = statementText(statement);
          const values = typeof statement === 'string' ? given : statement.values;
          if (values === undefined || values.length === 0) {
            const results = await db.exec(text);
            const last = results.at(-1);
            return { rows: (last?.rows ?? []) as Record<string, unknown>[], rowCount: last?.affectedRows ?? null };
          }
          const result = await db.query<Record<string, unknown>>(text, [...values]);
          return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
        },
        release: () => {
          if (released) return;
          released = true;
          release();
        },
      };
      return client;
    },
    end: async () => undefined,
  };
}

/** A real-server pool (for seeding and reading behind the storage's back) of at most `max` connections. */
export const serverPool = (applicationName = 'agent-schedule-test-admin', max = 4): pg.Pool & SqlPool => {
  const pool = new pg.Pool({ connectionString: SERVER_URL, application_name: applicationName, max });
  pool.on('error', () => undefined);
  return pool as pg.Pool & SqlPool;
};

/** Runs one statement on a client of `pool`. */
export async function run(pool: SqlPool, text: string, values?: readonly unknown[]): Promise<SqlResult> {
  const client = await pool.connect();
  try {
    return await client.query(text, values);
  } finally {
    client.release();
  }
}

/** Drops the schemas handed out by `schemas` (call in afterEach). */
export async function dropSchemas(pool: SqlPool, schemas: string[]): Promise<void> {
  for (const schema of schemas.splice(0)) await run(pool, `drop schema if exists "${schema}" cascade`);
}

/** Inserts a document's rows as they are (no validation), with best-effort columns, and its counter. */
export async function seedRows(pool: SqlPool, schema: string, document: unknown): Promise<void> {
  const client = await pool.connect();
  try {
    await migrate(client, schema);
  } finally {
    client.release();
  }
  const doc = (document ?? {}) as { tasks?: unknown[]; nextTaskNumber?: number };
  for (const value of doc.tasks ?? []) {
    const raw = value as { sessionId?: unknown; status?: unknown; record?: { id?: unknown; scheduledAt?: unknown } };
    const sessionId = String(raw.sessionId ?? '');
    await run(
      pool,
      `insert into "${schema}".tasks (id, session_id, shard, status, next_target, row) values ($1, $2, $3, $4, $5, $6::json)`,
      [
        String(raw.record?.id ?? ''),
        sessionId,
        shardOf(sessionId),
        raw.status === 'inactive' ? 'inactive' : 'active',
        String(raw.record?.scheduledAt ?? '2030-01-01T00:00:00.000Z'),
        JSON.stringify(value),
      ],
    );
  }
  if (doc.nextTaskNumber !== undefined)
    await run(pool, `select setval('"${schema}".task_number', $1::bigint, false)`, [doc.nextTaskNumber]);
}

/**
 * A conformance harness. `options(schema)` gives the options of each new storage instance;
 * `admin` seeds rows and reads documents; every schema is pushed onto `schemas` for cleanup.
 */
export function postgresHarness(options: (schema: string) => PostgresStorageOptions, admin: SqlPool, schemas: string[]): StorageHarness {
  const store = (schema: string): Store => {
    let document: unknown;
    const readDocument = async () => {
      const reader = postgresStorage({ pool: admin, schema });
      const domain = await reader.open();
      await reader.close();
      document = JSON.parse(encodeDocument(domain));
    };
    return {
      storage: (): ScheduleStorage => {
        const storage = postgresStorage(options(schema));
        return {
          open: () => storage.open(),
          commit: (batch) => storage.commit(batch),
          close: async () => {
            await storage.close();
            await readDocument();
          },
        };
      },
      document: () => document,
    };
  };
  const fresh = (): Store => {
    const schema = randomSchema();
    schemas.push(schema);
    return store(schema);
  };
  return {
    fresh,
    seeded: async (document) => {
      const schema = randomSchema();
      schemas.push(schema);
      await seedRows(admin, schema, document);
      return store(schema);
    },
  };
}

const pgliteVersion = (
  JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'node_modules', '@electric-sql', 'pglite', 'package.json'), 'utf8')) as {
    version: string;
  }
).version;
/** The data directory of a just-initialized database, kept across test files and runs (per PGlite version and user). */
const INITIALIZED_DIR = join(tmpdir(), `agent-schedule-test-pglite-${pgliteVersion}-${process.getuid?.() ?? 'user'}.tar`);

/**
 * A fresh in-process PGlite database. Creating one runs initdb, which takes seconds; every file
 * after the first starts from a copy of the data directory initdb left, which holds the same
 * empty database. A copy that cannot be read or loaded is made again.
 */
export async function newPglite(): Promise<PGlite> {
  const saved = await readFile(INITIALIZED_DIR).catch(() => undefined);
  if (saved !== undefined) {
    try {
      return await PGlite.create({ loadDataDir: new Blob([saved]) });
    } catch {
      // a torn or foreign copy: initialize afresh below and replace it
    }
  }
  const db = await PGlite.create();
  const dump = Buffer.from(await (await db.dumpDataDir('none')).arrayBuffer());
  // Written under a unique name and renamed, so a file running alongside never reads half a copy.
  const partial = `${INITIALIZED_DIR}.${randomUUID()}`;
  await writeFile(partial, dump);
  await rename(partial, INITIALIZED_DIR).catch(() => rm(partial, { force: true }));
  return db;
}

/** One PGlite database for a test file: opened before its tests, schemas dropped after each, closed at the end. */
/** Listens through PGlite's `listen`, which delivers the notifications of its one session. */
export const pgliteListener =
  (database: () => PGlite): NotificationListener =>
  async (channels, onNotification) => {
    const db = database();
    const stops = await Promise.all(channels.map((channel) => db.listen(`"${channel}"`, (payload) => onNotification(channel, payload))));
    return async () => {
      for (const stop of stops) await stop();
    };
  };

export function usePglite(): { readonly pool: SqlPool; readonly db: PGlite; readonly schemas: string[] } {
  let db: PGlite | undefined;
  let pool: SqlPool | undefined;
  const schemas: string[] = [];
  beforeAll(async () => {
    db = await newPglite();
    pool = pglitePool(db);
  });
  afterEach(() => (pool === undefined ? undefined : dropSchemas(pool, schemas)));
  afterAll(() => db?.close());
  return {
    get pool(): SqlPool {
      if (pool === undefined) throw new Error('the PGlite database is opened before the tests run');
      return pool;
    },
    get db(): PGlite {
      if (db === undefined) throw new Error('the PGlite database is opened before the tests run');
      return db;
    },
    schemas,
  };
}

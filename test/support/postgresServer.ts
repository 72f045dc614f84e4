// The real PostgreSQL server for a `*.pgtest.ts` file (`npm run test:postgres`): one admin pool
// for seeding and reading behind the code's back, the schemas the file's tests push dropped after
// each test, the pool ended after the last one. The pool connects on first use.
import type pg from 'pg';
import type { SqlPool } from '../../src/adapters/postgres/driver.ts';
import { dropSchemas, serverPool } from '../storage/postgresHarness.ts';

export interface PostgresServer {
  /** The admin pool on the server at `PG_TEST_URL`. */
  readonly admin: pg.Pool & SqlPool;
  /** Schemas pushed here are dropped after each test. */
  readonly schemas: string[];
}

/** Opens the admin pool for this test file and registers its cleanup. */
export function usePostgresServer(): PostgresServer {
  const admin = serverPool();
  const schemas: string[] = [];
  afterEach(() => dropSchemas(admin, schemas));
  afterAll(() => admin.end());
  return { admin, schemas };
}

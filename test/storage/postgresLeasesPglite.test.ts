// Shard leases and fenced commits on PGlite (PostgreSQL in WebAssembly, in process), so they run
// wherever `npm test` does; `npm run test:postgres` runs the same suite against a real server.
import type { PGlite } from '@electric-sql/pglite';
import type { SqlPool } from '../../src/adapters/postgres/driver.ts';
import { dropSchemas, newPglite, pglitePool } from './postgresHarness.ts';
import { describeShardLeases } from './postgresLeases.ts';

let db: PGlite;
let pool: SqlPool;
const schemas: string[] = [];

beforeAll(async () => {
  db = await newPglite();
  pool = pglitePool(db);
});
afterEach(() => dropSchemas(pool, schemas));
afterAll(() => db.close());

describeShardLeases('PGlite', () => ({ pool, admin: pool, schemas }));

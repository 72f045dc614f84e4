// The PostgreSQL storage on PGlite (PostgreSQL compiled to WebAssembly, in process), so it runs
// wherever `npm test` does: the storage conformance suite, migrations and corrupt rows. The same
// suite runs against a real server in `npm run test:postgres`.
import type { PGlite } from '@electric-sql/pglite';
import type { SqlPool } from '../../src/adapters/postgres/driver.ts';
import { describeStorageConformance } from './conformance.ts';
import { dropSchemas, newPglite, pglitePool, postgresHarness } from './postgresHarness.ts';
import { describePostgresBehaviour } from './postgresShared.ts';

let db: PGlite;
let pool: SqlPool;
const schemas: string[] = [];

beforeAll(async () => {
  db = await newPglite();
  pool = pglitePool(db);
});
afterEach(() => dropSchemas(pool, schemas));
afterAll(() => db.close());

describeStorageConformance(
  'postgresStorage on PGlite',
  postgresHarness((schema) => ({ pool, schema }), { connect: () => pool.connect(), end: async () => undefined }, schemas),
);
describePostgresBehaviour('PGlite', () => ({ pool, admin: pool, schemas }));

// The PostgreSQL-backed Sessions and a Host on PostgreSQL, on PGlite (PostgreSQL compiled to
// WebAssembly, in process), so they run wherever `npm test` does. The same suite runs against a
// real server in `npm run test:postgres`. A Host on PGlite hears notifications through PGlite's `listen`.
import { pgliteListener, usePglite } from '../storage/postgresHarness.ts';
import { describePostgresSessions } from './postgresSessions.ts';

const db = usePglite();

describePostgresSessions('PGlite', () => ({
  pool: db.pool,
  schemas: db.schemas,
  hostDatabase: (schema) => ({ pool: db.pool, schema, listen: pgliteListener(() => db.db), keeperPool: db.pool }),
}));

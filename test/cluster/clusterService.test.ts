// The cluster suite on PGlite (PostgreSQL in WebAssembly, in process), so it runs wherever `npm
// test` does; notifications come through PGlite's own `listen`. `npm run test:postgres` runs the
// same suite against a real server.
import { pgliteListener, usePglite } from '../storage/postgresHarness.ts';
import { describeCluster } from './clusterSuite.ts';

const db = usePglite();

// PGlite is one connection: the keepers share it rather than hold it.
describeCluster('PGlite', () => ({ pool: db.pool, schemas: db.schemas, listen: pgliteListener(() => db.db), keeperPool: db.pool }));

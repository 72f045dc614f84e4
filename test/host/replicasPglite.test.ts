// Two Host replicas on one PGlite database (PostgreSQL in WebAssembly, in process), so they run
// wherever `npm test` does; notifications come through PGlite's own `listen`. The same suite runs
// against a real server in `npm run test:postgres` (replicasServer.pgtest.ts).
import { pgliteListener, usePglite } from '../storage/postgresHarness.ts';
import { describeReplicas } from './replicas.ts';

const db = usePglite();

describeReplicas('PGlite', () => ({
  pool: db.pool,
  schemas: db.schemas,
  hostDatabase: (schema, hostId) => ({
    pool: db.pool,
    schema,
    hostId,
    listen: pgliteListener(() => db.db),
    autoStart: false,
    keeperPool: db.pool,
  }),
}));

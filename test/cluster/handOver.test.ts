// A shard's hand-over on PGlite (npm test): its one connection is shared by both Hosts and their
// keepers; notifications come through PGlite's own `listen`. The server runs the same suite in
// handOverServer.pgtest.ts.
import { pgliteListener, usePglite } from '../storage/postgresHarness.ts';
import { describeHandOver } from './handOverSuite.ts';

const db = usePglite();

describeHandOver('PGlite', () => ({ pool: db.pool, schemas: db.schemas, listen: pgliteListener(() => db.db), keeperPool: (pool) => pool }));

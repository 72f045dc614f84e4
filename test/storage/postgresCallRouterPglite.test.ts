// The call router on PGlite (PostgreSQL in WebAssembly, in process), so it runs wherever `npm test`
// does; `npm run test:postgres` runs the same suite against a real server. PGlite is one session,
// so notifications come through its own `listen` rather than a connection kept for listening.
import { describeCallRouter } from './postgresCallRouter.ts';
import { pgliteListener, usePglite } from './postgresHarness.ts';

const db = usePglite();

describeCallRouter('PGlite', () => ({ pool: db.pool, admin: db.pool, schemas: db.schemas, listen: () => pgliteListener(() => db.db) }));

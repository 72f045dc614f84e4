// The shard keeper on PGlite (PostgreSQL in WebAssembly, in process), so it runs wherever `npm
// test` does; `npm run test:postgres` runs the same suite against a real server.
import { usePglite } from './postgresHarness.ts';
import { describeShardKeeper } from './postgresShardKeeper.ts';

const db = usePglite();

describeShardKeeper('PGlite', () => ({ pool: db.pool, admin: db.pool, schemas: db.schemas }));

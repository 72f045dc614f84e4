// Shard leases, fenced commits and shared commits on PGlite (PostgreSQL in WebAssembly, in process), so they run
// wherever `npm test` does; `npm run test:postgres` runs the same suite against a real server.
import { usePglite } from './postgresHarness.ts';
import { describeShardLeases } from './postgresLeases.ts';
import { describeSharedCommits } from './postgresSharedCommits.ts';

const db = usePglite();

describeShardLeases('PGlite', () => ({ pool: db.pool, admin: db.pool, schemas: db.schemas }));
describeSharedCommits('PGlite', () => ({ pool: db.pool, admin: db.pool, schemas: db.schemas }));

// The PostgreSQL storage on PGlite (PostgreSQL compiled to WebAssembly, in process), so it runs
// wherever `npm test` does: the storage conformance suite, migrations, corrupt rows and one writer
// per schema. The same suites run against a real server in `npm run test:postgres`.
import { describeStorageConformance } from './conformance.ts';
import { postgresHarness, usePglite } from './postgresHarness.ts';
import { describeReadOnDemand } from './postgresOnDemand.ts';
import { describePostgresOwner } from './postgresOwner.ts';
import { describePostgresBehaviour } from './postgresShared.ts';

const db = usePglite();

describeStorageConformance(
  'postgresStorage on PGlite',
  postgresHarness((schema) => ({ pool: db.pool, schema }), { connect: () => db.pool.connect(), end: async () => undefined }, db.schemas),
);
describePostgresBehaviour('PGlite', () => ({ pool: db.pool, admin: db.pool, schemas: db.schemas }));
describePostgresOwner('PGlite', () => ({ pool: db.pool, admin: db.pool, schemas: db.schemas }));
describeReadOnDemand('PGlite', () => ({ pool: db.pool, admin: db.pool, schemas: db.schemas }));

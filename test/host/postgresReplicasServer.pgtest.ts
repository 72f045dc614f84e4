// Two Host replicas against a real server (`npm run test:postgres`; PG_TEST_URL, default
// postgres://postgres@127.0.0.1:5432/test): the shared suite (replicas.ts), each replica opening
// its own pool from the URL as DATABASE_URL makes it do, hearing notifications on a connection
// of its own. Each test's schema is dropped after it.
import { SERVER_URL } from '../storage/postgresHarness.ts';
import { usePostgresServer } from '../support/postgresServer.ts';
import { describeReplicas } from './replicas.ts';

const { admin, schemas } = usePostgresServer();

describeReplicas('the server', () => ({
  pool: admin,
  schemas,
  hostDatabase: (schema, hostId) => ({ url: SERVER_URL, schema, hostId, autoStart: false }),
}));

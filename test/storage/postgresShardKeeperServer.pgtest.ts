// The shard keeper against a real server (`npm run test:postgres`; PG_TEST_URL), with a pool wide
// enough for the keepers' statements to really run at once.
import { usePostgresServer } from '../support/postgresServer.ts';
import { serverPool } from './postgresHarness.ts';
import { describeShardKeeper } from './postgresShardKeeper.ts';

const server = usePostgresServer();
const wide = serverPool('agent-schedule-test-keeper', 12);
afterAll(() => wide.end());

describeShardKeeper('the server', () => ({ pool: wide, admin: server.admin, schemas: server.schemas }));

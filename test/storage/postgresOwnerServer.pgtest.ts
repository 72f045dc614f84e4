// One writer per schema across processes, against a real server (`npm run test:postgres`): while
// a Host process (postgresBlipChild.ts) has its plain storage open, another opener is refused
// with `storage_locked` naming that process; once it is killed with SIGKILL (no close, its claim
// left in the owner row with a live lease), a new opener on this machine gets in at once.
import { postgresStorage } from '../../src/adapters/postgres/postgresStorage.ts';
import type { SchemaLockedError } from '../../src/adapters/postgres/storageOwner.ts';
import { usePostgresServer } from '../support/postgresServer.ts';
import { startHost } from './postgresBlip.ts';
import { randomSchema, SERVER_URL } from './postgresHarness.ts';

const { schemas } = usePostgresServer();

describe('postgresStorage on the server: one writer per schema across processes', () => {
  it('a second opener is refused naming the Host process; after that process is SIGKILLed a new opener gets in at once', async () => {
    const schema = randomSchema();
    schemas.push(schema);
    const applicationName = `agent-schedule-owner-${schema}`;
    const host = startHost(schema, applicationName);
    try {
      const ready: Record<string, unknown> = await Promise.race([host.next('ready'), host.exited.then((how) => ({ e: 'exit', how }))]);
      expect(ready).toEqual({ e: 'ready' });

      const second = postgresStorage({ connectionString: SERVER_URL, schema });
      const refused = await second.open().then(
        () => undefined,
        (error: unknown) => error as SchemaLockedError,
      );
      expect(refused?.code).toBe('storage_locked');
      expect(refused?.holder).toMatchObject({ pid: host.child.pid, applicationName });
      expect(refused?.message).toContain(`pid ${String(host.child.pid)}, application_name ${JSON.stringify(applicationName)}`);
      expect(refused?.message).toContain('createClusterService from agent-schedule/postgres');

      host.child.kill('SIGKILL');
      expect(await host.exited).toMatch(/^exit code null \(SIGKILL\)/);
      const after = postgresStorage({ connectionString: SERVER_URL, schema });
      expect(await after.open()).toEqual({ tasks: [], nextTaskNumber: 1 });
      await after.close();
    } finally {
      if (host.child.exitCode === null && host.child.signalCode === null) host.child.kill('SIGKILL');
    }
  });
});

// Two replicas of the reference Host on one PostgreSQL schema, on any PostgreSQL (PGlite in `npm
// test`, the real server in `npm run test:postgres`): each started with `createHost` in database
// mode, its shard keeper stepped at the test's pace until they hold 128 shards each. A task
// created through either replica, for a Session of either's shards, is in both replicas'
// catalogs, a change made through one reaches the other's subscribers, each reminder is
// delivered once, by its shard's owner, whose Host id the transcript records; `GET
// /api/cluster` answers both Hosts with 256 shards between them, and `GET /api/inspect` shows
// the actors of the shards the replica asked holds.
import type { HostDatabaseOptions } from '../../host/database.ts';
import type { SqlPool } from '../../src/adapters/postgres/driver.ts';
import { shardOf } from '../../src/domain/tasks/sessionShard.ts';
import { parseInspectorSnapshot } from '../../src/index.ts';
import { run } from '../storage/postgresHarness.ts';
import { startTestHost, type TestHost } from './support.ts';

export interface ReplicasContext {
  readonly pool: SqlPool;
  /** Schemas pushed here are dropped after each test. */
  readonly schemas: string[];
  /** How a replica reaches the database, for a schema and a Host id. */
  readonly hostDatabase: (schema: string, hostId: string) => HostDatabaseOptions;
}

interface ClusterBody {
  readonly clustered: boolean;
  readonly hostId: string;
  readonly hosts: Array<{ hostId: string; shards: number; ranges: string[]; self: boolean }>;
  readonly unowned: number;
  readonly shards: Array<{ shard: number; owner: string | null; epoch: number }>;
}

/** A fresh schema name no other test uses. */
const replicaSchema = (): string => `host_replica_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 10)}`;

/** A Session id whose shard `t` holds. */
function sessionHeldBy(t: TestHost): string {
  const held = t.host.cluster?.held() ?? new Map();
  for (let i = 0; ; i++) if (held.has(shardOf(`user-${i}`))) return `user-${i}`;
}

export function describeReplicas(name: string, context: () => ReplicasContext): void {
  describe(`two Host replicas on ${name}`, () => {
    const running: TestHost[] = [];
    afterEach(async () => {
      for (const t of running.splice(0)) await t.close();
    });

    it('share the catalog, deliver each reminder once at the owner, and report who holds which shards', async () => {
      const schema = replicaSchema();
      context().schemas.push(schema);
      const a = await startTestHost({ database: context().hostDatabase(schema, 'replica-a') });
      running.push(a);
      const b = await startTestHost({ database: context().hostDatabase(schema, 'replica-b') });
      running.push(b);
      for (let round = 0; round < 3; round++) {
        await a.host.cluster?.step();
        await b.host.cluster?.step();
      }
      expect([a.host.cluster?.held().size, b.host.cluster?.held().size]).toEqual([128, 128]);

      const changesAtB: string[] = [];
      b.host.service.subscribe((change) => changesAtB.push(change.sessionId));
      const atA = sessionHeldBy(a);
      const atB = sessionHeldBy(b);
      // Each created through the replica that does not hold its Session's shard: the call is routed.
      const tea = await a.create(atB, { title: 'Tea', prompt: 'the tea is ready', after_seconds: 60 });
      const post = await b.create(atA, { title: 'Post', prompt: 'the post has come', after_seconds: 60 });
      expect([tea.status, post.status]).toEqual([200, 200]);

      for (const t of [a, b]) {
        const catalog = (await t.get<Array<{ sessionId: string; record: { id: string } }>>('/api/catalog')).body;
        expect(catalog.map((entry) => [entry.sessionId, entry.record.id]).sort()).toEqual(
          [
            [atB, tea.body.id],
            [atA, post.body.id],
          ].sort(),
        );
        const page = (await t.get<{ total: number; entries: unknown[] }>('/api/catalog?status=scheduled&limit=1')).body;
        expect(page).toMatchObject({ total: 2, entries: [expect.anything()] });
      }
      await vi.waitFor(() => expect(changesAtB).toContain(atB), { timeout: 5_000 });

      // Both replicas' clocks move past the targets; each reminder is delivered once, by its owner.
      await a.advance(61_000);
      await b.advance(61_000);
      const delivered = await run(
        context().pool,
        `select session_id, host_id, count(*)::int as n from "${schema}".host_transcript_messages
         where role = 'user' group by session_id, host_id order by session_id`,
      );
      expect([...delivered.rows].sort((x, y) => String(x.session_id).localeCompare(String(y.session_id)))).toEqual(
        [
          { session_id: atA, host_id: 'replica-a', n: 1 },
          { session_id: atB, host_id: 'replica-b', n: 1 },
        ].sort((x, y) => x.session_id.localeCompare(y.session_id)),
      );
      const transcript = (await a.get<Array<{ role: string; hostId?: string }>>(`/api/sessions/${atB}/transcript`)).body;
      expect(transcript.filter((line) => line.role === 'user').map((line) => line.hostId)).toEqual(['replica-b']);

      const cluster = (await a.get<ClusterBody>('/api/cluster')).body;
      expect(cluster).toMatchObject({ clustered: true, hostId: 'replica-a', unowned: 0 });
      expect(cluster.hosts.map((h) => [h.hostId, h.shards, h.self])).toEqual([
        ['replica-a', 128, true],
        ['replica-b', 128, false],
      ]);
      expect(cluster.hosts.reduce((sum, h) => sum + h.shards, 0)).toBe(256);
      expect(cluster.shards).toHaveLength(256);
      expect(cluster.hosts[0]?.ranges).toEqual(['0-127']);
      expect((await b.get<ClusterBody>('/api/cluster')).body.hosts.map((h) => h.self)).toEqual([false, true]);
      expect((await b.get<{ hostId: string }>('/api/status')).body.hostId).toBe('replica-b');

      // This replica's actors only: one supervisor per shard it holds, named after its shard.
      const view = parseInspectorSnapshot(await (await fetch(`${a.url}/api/inspect`)).text());
      const supervisors = view.actors.filter((actor) => actor.kind === 'supervisor').map((actor) => actor.id);
      expect(supervisors).toHaveLength(128);
      expect(supervisors).toContain(`supervisor (shard ${shardOf(atA)})`);
      expect(supervisors).not.toContain(`supervisor (shard ${shardOf(atB)})`);
    });
  });
}

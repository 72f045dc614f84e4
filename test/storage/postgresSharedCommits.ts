// Shared commits (sharedCommits.ts), registered for PGlite (in `npm test`) and for the real server
// (`npm run test:postgres`): fenced storages of one shard each, as a cluster Host's shards are,
// whose commits of one turn, or queued while another is on its way, go out as one statement — each
// written at its shard's epoch; and when the one statement cannot write them all, each is sent by itself, so
// a lost lease or a taken id fails only the commit it belongs to; a lost connection fails them all
// as uncertain, as it fails one.
import type { SqlPool } from '../../src/adapters/postgres/driver.ts';
import { LeaseLostError } from '../../src/adapters/postgres/fence.ts';
import { quoteSchema } from '../../src/adapters/postgres/migrations.ts';
import { postgresStorage } from '../../src/adapters/postgres/postgresStorage.ts';
import { shardLeases } from '../../src/adapters/postgres/shardLeases.ts';
import { sharedCommits } from '../../src/adapters/postgres/sharedCommits.ts';
import type { TaskRow } from '../../src/domain/tasks/types.ts';
import { countingPool } from '../support/countingPool.ts';
import { waitUntil } from '../support/waitUntil.ts';
import { row } from './fixtures.ts';
import { randomSchema, run } from './postgresHarness.ts';
import { failure, type LeaseBackend, sessionIn } from './postgresLeases.ts';

const LEASE_MS = 60_000;
const SHARDS = [0, 1, 2];

/** Registers the shared-commit tests for one backend. */
export function describeSharedCommits(name: string, backend: () => LeaseBackend): void {
  const on = (shard: number, n: number): TaskRow => row(n, 'every', sessionIn(shard));

  /**
   * Host `a` holds shards 0–2; a storage for each, fenced at its shard's epoch only, all sharing
   * one `sharedCommits` with one statement on its way at a time, on `pool` (counted).
   */
  async function setUp(pool: (counted: SqlPool) => SqlPool = (counted) => counted) {
    const schema = randomSchema();
    backend().schemas.push(schema);
    const leases = shardLeases({ pool: backend().pool, schema });
    const held = await leases.acquire({ hostId: 'a', leaseMs: LEASE_MS, want: SHARDS.length });
    expect(held.map((l) => l.shard)).toEqual(SHARDS);
    // Task numbers handed out already (as a cluster Host draws them in blocks): commits need not move the sequence.
    await run(backend().admin, `select setval('"${schema}".task_number', 100)`);
    const counting = countingPool(backend().pool);
    const through = pool(counting.pool);
    const shared = sharedCommits({ pool: through, quotedSchema: quoteSchema(schema), maxInFlight: 1 });
    const storages = held.map((lease) =>
      postgresStorage({
        pool: through,
        schema,
        sharedCommits: shared,
        fence: { hostId: 'a', epochs: () => new Map([[lease.shard, lease.epoch]]) },
      }),
    );
    for (const storage of storages) await storage.open();
    counting.reset();
    const commits = () => counting.sent.filter((s) => s.text.startsWith('with ')).length;
    const stored = async () =>
      (
        await run(
          backend().admin,
          `select id, shard::int as shard, committed_by, committed_epoch::int as epoch from "${schema}".tasks order by id`,
        )
      ).rows;
    const close = () => Promise.all(storages.map((s) => s.close()));
    return { schema, leases, storages, counting, commits, stored, close };
  }

  describe(`shared commits on ${name}`, () => {
    it("commits of several shards' storages made in one turn go out as one statement, each row at its shard's epoch", async () => {
      const { storages, commits, stored, close } = await setUp();
      const [s0, s1, s2] = storages;
      await Promise.all([
        s0?.commit({ puts: [on(0, 1)], deletes: [] }),
        s1?.commit({ puts: [on(1, 2)], deletes: [] }),
        s2?.commit({ puts: [on(2, 3), on(2, 4)], deletes: [] }),
      ]);
      expect(commits()).toBe(1);
      expect(await stored()).toEqual([
        { id: 'sch_1', shard: 0, committed_by: 'a', epoch: 1 },
        { id: 'sch_2', shard: 1, committed_by: 'a', epoch: 1 },
        { id: 'sch_3', shard: 2, committed_by: 'a', epoch: 1 },
        { id: 'sch_4', shard: 2, committed_by: 'a', epoch: 1 },
      ]);
      // Deletes share a statement too.
      await Promise.all([s0?.commit({ puts: [], deletes: ['sch_1'] }), s1?.commit({ puts: [], deletes: ['sch_2'] })]);
      await Promise.all([s1?.commit({ puts: [on(1, 5)], deletes: [] }), s2?.commit({ puts: [], deletes: ['sch_3'] })]);
      expect(commits()).toBe(3);
      expect((await stored()).map((r) => r.id)).toEqual(['sch_4', 'sch_5']);
      await close();
    });

    it('commits made while a statement is on its way wait for it, then go out together with those its answer lets its callers make', async () => {
      let hold: Promise<void> | undefined;
      const { storages, commits, stored, close } = await setUp((counted) => ({
        connect: async () => {
          const client = await counted.connect();
          return {
            query: async (text, values) => {
              const held = hold;
              const answer = await client.query(text, values);
              await held;
              return answer;
            },
            release: (error) => client.release(error),
          };
        },
        end: () => counted.end(),
      }));
      const [s0, s1] = storages;
      let release = (): void => undefined;
      hold = new Promise<void>((resolve) => {
        release = resolve;
      });
      const first = s0!.commit({ puts: [on(0, 1)], deletes: [] });
      await waitUntil(() => commits() === 1, 'the first commit on its way');
      hold = undefined;
      const queued = [s1!.commit({ puts: [on(1, 2)], deletes: [] })];
      // The first one's caller commits again as soon as it hears its answer.
      const again = first.then(() => s0!.commit({ puts: [on(0, 3)], deletes: [] }));
      release();
      await Promise.all([...queued, again]);
      expect(commits()).toBe(2);
      expect((await stored()).map((r) => r.id)).toEqual(['sch_1', 'sch_2', 'sch_3']);
      await close();
    });

    it('when one lease of the statement is lost, the others are written and only that commit is refused', async () => {
      const { schema, leases, storages, commits, stored, close } = await setUp();
      const [s0, s1, s2] = storages;
      await run(backend().admin, `update "${schema}".shard_leases set expires_at = now() - interval '1 second' where shard = 1`);
      expect(await leases.acquire({ hostId: 'b', leaseMs: LEASE_MS, want: 1 })).toMatchObject([{ shard: 1, epoch: 2 }]);
      const [first, lost, other] = await Promise.all([
        failure(s0!.commit({ puts: [on(0, 1)], deletes: [] })),
        failure(s1!.commit({ puts: [on(1, 2)], deletes: [] })),
        failure(s2!.commit({ puts: [on(2, 3)], deletes: [] })),
      ]);
      expect(first.code).toBe('resolved');
      expect(other.code).toBe('resolved');
      expect(lost.error).toBeInstanceOf(LeaseLostError);
      expect(lost.message).toBe(
        'Refusing to commit: the lease of host "a" on shard 1 at epoch 1 was lost: host "b" holds it now, at epoch 2; nothing of the batch was written.',
      );
      // The three together, refused; then each by itself.
      expect(commits()).toBe(4);
      expect((await stored()).map((r) => r.id)).toEqual(['sch_1', 'sch_3']);
      await close();
    });

    it("a put of an id another Session's task holds fails only its own commit, naming the id", async () => {
      const { storages, stored, close } = await setUp();
      const [s0, s1, s2] = storages;
      await s0?.commit({ puts: [on(0, 9)], deletes: [] });
      const [first, taken, other] = await Promise.all([
        failure(s0!.commit({ puts: [on(0, 1)], deletes: [] })),
        failure(s1!.commit({ puts: [on(1, 9)], deletes: [] })),
        failure(s2!.commit({ puts: [on(2, 3)], deletes: [] })),
      ]);
      expect([first.code, other.code]).toEqual(['resolved', 'resolved']);
      expect(taken).toMatchObject({
        code: 'internal_error',
        message:
          'Refusing to commit: task id "sch_9" is already held by another Session\'s task (ids are unique across Hosts); nothing was written.',
      });
      expect(await stored()).toEqual([
        { id: 'sch_1', shard: 0, committed_by: 'a', epoch: 1 },
        { id: 'sch_3', shard: 2, committed_by: 'a', epoch: 1 },
        { id: 'sch_9', shard: 0, committed_by: 'a', epoch: 1 },
      ]);
      await close();
    });

    it('a connection lost under the shared statement fails each of its commits as uncertain, and none is sent again', async () => {
      let cut = false;
      let cutStatements = 0;
      let refuseConnections = false;
      const { storages, close } = await setUp((counted) => ({
        connect: async () => {
          if (refuseConnections) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
          const client = await counted.connect();
          return {
            query: (text, values) => {
              if (!cut || typeof text === 'string') return client.query(text, values);
              cutStatements++;
              return Promise.reject(new Error('Connection terminated unexpectedly'));
            },
            release: (error) => client.release(error),
          };
        },
        end: () => counted.end(),
      }));
      const [s0, s1, s2] = storages;
      cut = true;
      const answers = await Promise.all([
        failure(s0!.commit({ puts: [on(0, 1)], deletes: [] })),
        failure(s1!.commit({ puts: [on(1, 2)], deletes: [] })),
        failure(s2!.commit({ puts: [on(2, 3)], deletes: [] })),
      ]);
      for (const answer of answers) {
        expect(answer.code).toBe('persistence_uncertain');
        expect(answer.message).toBe(
          'The schedule change could not be confirmed: the database connection was lost (Connection terminated unexpectedly); it may or may not have been stored.',
        );
      }
      // One statement for the three, answered by the lost connection: none sent again.
      expect(cutStatements).toBe(1);
      cut = false;
      refuseConnections = true;
      // Past the pause the lost connection started, a commit that cannot get a connection was never sent.
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(await failure(storages[0]!.commit({ puts: [on(0, 4)], deletes: [] }))).toMatchObject({
        code: 'persistence_uncertain',
        message: 'The schedule change could not be sent: the database cannot be reached (connect ECONNREFUSED 127.0.0.1:5432).',
      });
      refuseConnections = false;
      await close();
    });
  });
}

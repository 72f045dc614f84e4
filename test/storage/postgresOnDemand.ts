// Reading on demand, registered for PGlite (in `npm test`) and for the real server: with
// passivation on, the service opens a PostgreSQL storage with only the active rows due within its
// read-ahead, reads a Session's rows before a call of that Session, every row before a call across
// Sessions, and the rows about to fall due in windows ahead of the horizon; the storage's own reads
// answer what is stored now and refuse a corrupt row by name.
import { postgresStorage } from '../../src/adapters/postgres/postgresStorage.ts';
import { ScheduleError } from '../../src/domain/errors.ts';
import type { HeldRows, ScheduleStorage, StoredDomain } from '../../src/ports.ts';
import { createScheduleService } from '../../src/service.ts';
import { createFakeSessions, createManualClock } from '../../src/testing.ts';
import { randomSchema, run } from './postgresHarness.ts';
import type { PostgresBackend } from './postgresShared.ts';

const START = '2030-01-01T09:00:00Z';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const quiet = { warn: () => undefined, error: () => undefined };
const ids = (domain: { readonly tasks: readonly { readonly record: { readonly id: string } }[] }) => domain.tasks.map((t) => t.record.id);
const idsOf = (rows: readonly { readonly record: { readonly id: string } }[]) => rows.map((r) => r.record.id).sort();
const viewIds = (views: unknown) => (views as { readonly id: string }[]).map((v) => v.id).sort();

/** A storage that keeps what its last open answered. */
function watched(storage: ScheduleStorage & { allocateTaskNumbers(count: number): Promise<readonly number[]> }) {
  const opened: StoredDomain[] = [];
  const wrapper: ScheduleStorage = {
    open: async (request) => {
      const domain = await storage.open(request);
      opened.push(domain);
      return domain;
    },
    commit: (batch) => storage.commit(batch),
    close: () => storage.close(),
    allocateTaskNumbers: (count) => storage.allocateTaskNumbers(count),
  };
  return { storage: wrapper, opened };
}

export function describeReadOnDemand(name: string, backend: () => PostgresBackend): void {
  const schemaOf = () => {
    const schema = randomSchema();
    backend().schemas.push(schema);
    return schema;
  };

  /** Five reminders: Session a's due in 10 minutes and in 5 days, Session b's in 3 and in 10 days, Session c's in 2 days. */
  async function seeded(schema: string) {
    const clock = createManualClock(START);
    const sessions = createFakeSessions();
    const service = await createScheduleService({ sessions, storage: postgresStorage({ pool: backend().pool, schema }), clock });
    await service.callTool('a', 'schedule_create', { title: 'Soon', prompt: 'Now.', after_seconds: 600 });
    await service.callTool('a', 'schedule_create', { title: 'Later', prompt: 'Later.', after_seconds: 5 * 86_400 });
    await service.callTool('b', 'schedule_create', { title: 'B1', prompt: 'Three days.', after_seconds: 3 * 86_400 });
    await service.callTool('b', 'schedule_create', { title: 'B2', prompt: 'Ten days.', after_seconds: 10 * 86_400 });
    await service.callTool('c', 'schedule_create', { title: 'C1', prompt: 'Two days.', after_seconds: 2 * 86_400 });
    await service.close();
    return { clock, sessions };
  }

  describe(`postgresStorage on ${name}: rows read on demand`, () => {
    it('an open asked for the rows due soon reads only those; the rest is read by Session, by due time or all at once', async () => {
      const schema = schemaOf();
      await seeded(schema);
      const now = Date.parse(START);
      const storage = postgresStorage({ pool: backend().pool, schema });
      const domain = await storage.open({ dueBefore: now + 2 * HOUR });
      expect(ids(domain)).toEqual(['sch_1']);
      expect(domain.nextTaskNumber).toBeGreaterThanOrEqual(6);
      const rest = domain.rest;
      if (rest === undefined) throw new Error('the open left nothing to read on demand');
      expect(rest.readUntil).toBe(now + 2 * HOUR);
      expect(idsOf(await rest.sessions(['b']))).toEqual(['sch_3', 'sch_4']);
      expect(idsOf(await rest.sessions(['a', 'nobody']))).toEqual(['sch_1', 'sch_2']);
      expect(idsOf(await rest.due(now + 2 * HOUR, now + 4 * DAY))).toEqual(['sch_3', 'sch_5']);
      expect(idsOf(await rest.due(now + 4 * DAY, now + 10 * DAY + HOUR))).toEqual(['sch_2', 'sch_4']);
      expect(idsOf(await rest.all())).toEqual(['sch_1', 'sch_2', 'sch_3', 'sch_4', 'sch_5']);
      await storage.close();
      await expect(rest.all()).rejects.toMatchObject({ code: 'internal_error' });

      const everything = postgresStorage({ pool: backend().pool, schema, readOnDemand: false });
      const whole = await everything.open({ dueBefore: now + 2 * HOUR });
      expect(ids(whole)).toEqual(['sch_1', 'sch_2', 'sch_3', 'sch_4', 'sch_5']);
      expect(whole.rest).toBeUndefined();
      await everything.close();
    });

    it('a corrupt row left stored refuses the read that reaches it, naming the row; the open succeeds', async () => {
      const schema = schemaOf();
      await seeded(schema);
      await run(backend().admin, `update "${schema}".tasks set row = '{"not": "a row"}' where id = 'sch_4'`);
      const storage = postgresStorage({ pool: backend().pool, schema });
      const domain = await storage.open({ dueBefore: Date.parse(START) + 2 * HOUR });
      expect(ids(domain)).toEqual(['sch_1']);
      await expect(domain.rest?.sessions(['a'])).resolves.toHaveLength(2);
      await expect(domain.rest?.sessions(['b'])).rejects.toMatchObject({
        code: 'corrupt_schedule_log',
        message: expect.stringContaining('row "sch_4"'),
      });
      await storage.close();
    });

    it('the service reads a Session before its call, every row before the catalog, and the rows due as the horizon nears', async () => {
      const schema = schemaOf();
      const { clock, sessions } = await seeded(schema);
      const { storage, opened } = watched(postgresStorage({ pool: backend().pool, schema }));
      const service = await createScheduleService({ sessions, storage, clock, logger: quiet });
      // The clock's steps wait for the service's work, reads over the network included.
      clock.attach(service);
      expect(opened.map(ids)).toEqual([['sch_1']]);

      // A Session's calls see all its tasks; a task never read is deleted, and stays deleted.
      expect(viewIds(await service.remote.list({ sessionId: 'b' }))).toEqual(['sch_3', 'sch_4']);
      expect(await service.callTool('a', 'schedule_delete', { id: 'sch_2' })).toMatchObject({ deleted: true });
      expect(viewIds(await service.callTool('a', 'schedule_list', {}))).toEqual(['sch_1']);

      // Six days on: the reminders due in 10 minutes and in 3 days were delivered, and so was
      // Session c's, due in 2 days, which no call read: its window of rows due soon was.
      await clock.advance(6 * DAY);
      await service.whenIdle();
      expect(sessions.messages('a').map((m) => m.text)).toEqual([expect.stringContaining('Now.')]);
      expect(sessions.messages('b').map((m) => m.text)).toEqual([expect.stringContaining('Three days.')]);
      expect(sessions.messages('c').map((m) => m.text)).toEqual([expect.stringContaining('Two days.')]);

      // The catalog reads every row: the deleted task is not among them.
      const catalog = await service.remote.catalog();
      expect(catalog.map((e) => [e.record.id, e.status])).toEqual([
        ['sch_1', 'inactive'],
        ['sch_3', 'inactive'],
        ['sch_4', 'active'],
        ['sch_5', 'inactive'],
      ]);
      // Read ahead of its horizon, it was delivered on time.
      expect(catalog.find((e) => e.record.id === 'sch_5')?.lastDelivery).toMatchObject({ deliveredAt: '2030-01-03T09:00:00.000Z' });
      await clock.advance(5 * DAY);
      await service.whenIdle();
      expect(sessions.messages('b').map((m) => m.text)).toEqual([
        expect.stringContaining('Three days.'),
        expect.stringContaining('Ten days.'),
      ]);
      await service.close();

      // Without passivation every row is read at open.
      const all = watched(postgresStorage({ pool: backend().pool, schema }));
      const again = await createScheduleService({ sessions, storage: all.storage, clock, config: { passivationHorizonMs: null } });
      expect(all.opened.map(ids)).toEqual([['sch_1', 'sch_3', 'sch_4', 'sch_5']]);
      await again.close();
    });

    it('the counts per state count the rows left in storage rather than read them, before and after later reads', async () => {
      const schema = schemaOf();
      const { clock, sessions } = await seeded(schema);
      // One task ended (delivered), one paused, both left in storage at the next open.
      const first = await createScheduleService({
        sessions,
        storage: postgresStorage({ pool: backend().pool, schema }),
        clock,
        logger: quiet,
      });
      clock.attach(first);
      await first.remote.pause({ sessionId: 'b', id: 'sch_4' });
      await clock.advance(10 * 60_000);
      await first.whenIdle();
      await first.close();
      const reads: string[] = [];
      const inner = postgresStorage({ pool: backend().pool, schema });
      const storage: ScheduleStorage = {
        open: async (request) => {
          const domain = await inner.open(request);
          const rest = domain.rest;
          if (rest === undefined) return domain;
          const noted =
            <A extends unknown[], T>(name: string, read: (...args: A) => Promise<T>) =>
            (...args: A): Promise<T> => {
              reads.push(name);
              return read(...args);
            };
          return {
            ...domain,
            rest: {
              readUntil: rest.readUntil,
              sessions: noted('sessions', (ids: readonly string[]) => rest.sessions(ids)),
              due: noted('due', (from: number, until: number) => rest.due(from, until)),
              all: noted('all', () => rest.all()),
              unreadCounts: noted('unreadCounts', (held: HeldRows) => rest.unreadCounts?.(held) ?? Promise.reject(new Error('no count'))),
            },
          };
        },
        commit: (batch) => inner.commit(batch),
        close: () => inner.close(),
        allocateTaskNumbers: (count) => inner.allocateTaskNumbers(count),
      };
      const everyRow = async () => {
        const whole = await createScheduleService({
          sessions,
          storage: postgresStorage({ pool: backend().pool, schema, readOnDemand: false }),
          clock,
          logger: quiet,
        });
        const counts = await whole.remote.counts({ sessionId: 'b' });
        await whole.close();
        return counts;
      };

      const lazy = await createScheduleService({ sessions, storage, clock, logger: quiet });
      const before = await lazy.remote.counts({ sessionId: 'b' });
      if ('code' in before) throw new Error(before.message);
      expect(reads).toEqual(['sessions', 'unreadCounts']);
      expect(before).toMatchObject({ all: { total: 5, ended: 1, paused: 1, scheduled: 3, overdue: 0 }, session: { total: 2, paused: 1 } });
      await lazy.close();
      expect(await everyRow()).toEqual(before);

      // Two days on, Session c's reminder was read by due time and delivered: the count follows.
      const again = await createScheduleService({ sessions, storage, clock, logger: quiet });
      clock.attach(again);
      reads.length = 0;
      expect(await again.remote.counts()).toEqual({ all: before.all });
      await clock.advance(2 * DAY);
      await again.whenIdle();
      const later = await again.remote.counts({ sessionId: 'b' });

      expect(reads.filter((r) => r === 'all')).toEqual([]);
      expect(later).toMatchObject({ all: { total: 5, ended: 2, paused: 1, scheduled: 2 } });
      await again.close();
      expect(await everyRow()).toEqual(later);
    });

    it('a call whose Session cannot be read answers persistence_uncertain and changes nothing; it succeeds once the database answers', async () => {
      const schema = schemaOf();
      const { clock, sessions } = await seeded(schema);
      const inner = postgresStorage({ pool: backend().pool, schema });
      let failReads = false;
      const storage: ScheduleStorage = {
        open: async (request) => {
          const domain = await inner.open(request);
          const rest = domain.rest;
          if (rest === undefined) return domain;
          const refuse = <T>(read: () => Promise<T>): Promise<T> =>
            failReads ? Promise.reject(new ScheduleError('persistence_uncertain', 'The stored tasks could not be read (test).')) : read();
          return {
            ...domain,
            rest: {
              readUntil: rest.readUntil,
              sessions: (s) => refuse(() => rest.sessions(s)),
              due: (from, until) => refuse(() => rest.due(from, until)),
              all: () => refuse(() => rest.all()),
            },
          };
        },
        commit: (batch) => inner.commit(batch),
        close: () => inner.close(),
        allocateTaskNumbers: (count) => inner.allocateTaskNumbers(count),
      };
      const service = await createScheduleService({ sessions, storage, clock, logger: quiet });
      failReads = true;
      expect(await service.callTool('b', 'schedule_delete', { id: 'sch_3' })).toMatchObject({
        deleted: false,
        code: 'persistence_uncertain',
      });
      failReads = false;
      expect(await service.callTool('b', 'schedule_delete', { id: 'sch_3' })).toMatchObject({ deleted: true });
      expect(viewIds(await service.remote.list({ sessionId: 'b' }))).toEqual(['sch_4']);
      await service.close();
    });
  });
}

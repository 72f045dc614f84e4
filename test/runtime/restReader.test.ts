// The rows an open left in storage, read on demand by the service (memory storage behind a
// storage that answers queries, as PostgreSQL does): the read-ahead at open, the reads by due time
// as the timer wakes for them, a failed read tried again 5 s later, and `whenIdle()` waiting for a
// read under way.
import type { TaskRow } from '../../src/domain/tasks/types.ts';
import { memoryStorage } from '../../src/index.ts';
import type { ScheduleStorage, StoredRest } from '../../src/ports.ts';
import { createScheduleService } from '../../src/service.ts';
import { createFakeSessions, createManualClock } from '../../src/testing.ts';

const START = '2030-01-01T09:00:00Z';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const target = (row: TaskRow): number => Date.parse(row.record.scheduledAt);

/** A storage over `inner` that, asked for the rows due soon, leaves the rest to reads it records. */
function queryable(inner: ScheduleStorage) {
  const reads: string[] = [];
  let failing = 0;
  let gate: Promise<void> | undefined;
  const storage: ScheduleStorage = {
    async open(request) {
      const domain = await inner.open();
      const until = request?.dueBefore;
      if (until === undefined) return domain;
      const all = domain.tasks;
      const read = async (what: string, pick: (row: TaskRow) => boolean): Promise<TaskRow[]> => {
        reads.push(what);
        await gate;
        if (failing > 0) {
          failing--;
          throw new Error('the database did not answer');
        }
        return all.filter(pick);
      };
      const rest: StoredRest = {
        readUntil: until,
        sessions: (ids) => read(`sessions ${ids.join(',')}`, (row) => ids.includes(row.sessionId)),
        due: (from, to) =>
          read(`due ${new Date(from).toISOString().slice(11, 16)}-${new Date(to).toISOString().slice(11, 16)}`, (row) => {
            const at = target(row);
            return row.status === 'active' && at >= from && at < to;
          }),
        all: () => read('all', () => true),
      };
      return { ...domain, tasks: all.filter((row) => row.status === 'active' && target(row) < until), rest };
    },
    commit: (batch) => inner.commit(batch),
    close: () => inner.close(),
  };
  return {
    storage,
    reads,
    failNext: (n: number) => {
      failing = n;
    },
    hold: () => {
      let release = (): void => undefined;
      gate = new Promise((resolve) => {
        release = resolve;
      });
      return () => {
        gate = undefined;
        release();
      };
    },
  };
}

/** A memory storage holding reminders of Session s due 10 minutes, 3 hours and 5 hours after START. */
async function seeded() {
  const clock = createManualClock(START);
  const sessions = createFakeSessions();
  const inner = memoryStorage();
  const service = await createScheduleService({ sessions, storage: inner, clock });
  for (const [title, after] of [
    ['ten minutes', 600],
    ['three hours', 3 * 3600],
    ['five hours', 5 * 3600],
  ] as const)
    await service.callTool('s', 'schedule_create', { title, prompt: `In ${title}.`, after_seconds: after });
  await service.close();
  return { clock, sessions, inner };
}

/** The seeded schedule opened again over a storage that leaves rows unread, with the warnings it logs. */
async function reopened() {
  const { clock, sessions, inner } = await seeded();
  const q = queryable(inner);
  const warnings: unknown[] = [];
  const service = await createScheduleService({
    sessions,
    storage: q.storage,
    clock,
    logger: { warn: (msg) => warnings.push(msg), error: () => undefined },
  });
  clock.attach(service);
  return { clock, sessions, q, warnings, service };
}

describe('rows left in storage', () => {
  it('opens with the read-ahead (two hours), then reads each next window half an hour before it is needed', async () => {
    const { clock, sessions, q, warnings, service } = await reopened();
    expect(q.reads).toEqual([]);
    // The first read by due time runs when less than the horizon and half the lead remain read: at 09:30.
    await clock.advance(29 * MINUTE);
    expect(q.reads).toEqual([]);
    await clock.advance(MINUTE);
    await service.whenIdle();
    expect(q.reads).toEqual(['due 11:00-11:30']);
    // The reminder due at 12:00 was read in the window that ends at 12:30 (read at 10:30), on time.
    await clock.advance(3 * HOUR);
    await service.whenIdle();
    expect(q.reads).toEqual([
      'due 11:00-11:30',
      'due 11:30-12:00',
      'due 12:00-12:30',
      'due 12:30-13:00',
      'due 13:00-13:30',
      'due 13:30-14:00',
      'due 14:00-14:30',
    ]);
    expect(sessions.messages('s').map((m) => m.text)).toEqual([
      expect.stringContaining('In ten minutes.'),
      expect.stringContaining('In three hours.'),
    ]);
    expect(warnings).toEqual([]);
    await service.close();
  });

  it('a failed read by due time is logged and tried again 5 s later; the reminder it brings is still delivered on time', async () => {
    const { clock, sessions, q, warnings, service } = await reopened();
    q.failNext(1);
    await clock.advance(30 * MINUTE);
    await service.whenIdle();
    expect(q.reads).toEqual(['due 11:00-11:30']);
    expect(warnings).toEqual(['The stored tasks due soon could not be read; trying again shortly.']);
    await clock.advance(5_000);
    await service.whenIdle();
    expect(q.reads).toEqual(['due 11:00-11:30', 'due 11:00-11:30']);
    await clock.advance(3 * HOUR);
    await service.whenIdle();
    const threeHours = sessions.messages('s').find((m) => m.text.includes('In three hours.'));
    expect(threeHours).toBeDefined();
    const entry = (await service.remote.get({ sessionId: 's', id: 'sch_2' })) as { lastDelivery?: { deliveredAt: string } };
    expect(entry.lastDelivery?.deliveredAt).toBe('2030-01-01T12:00:00.000Z');
    await service.close();
  });

  it('whenIdle() waits for a read by due time under way; a Session call reads the Session once', async () => {
    const { clock, sessions, inner } = await seeded();
    const q = queryable(inner);
    // Not attached to the clock: its steps would wait for the read this test holds.
    const service = await createScheduleService({ sessions, storage: q.storage, clock });
    const release = q.hold();
    await clock.advance(30 * MINUTE);
    let idle = false;
    const waiting = service.whenIdle().then(() => {
      idle = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(idle).toBe(false);
    release();
    await waiting;
    expect(q.reads).toEqual(['due 11:00-11:30']);
    // The reminder due at 09:10 was delivered; the two left, neither read before, are listed.
    expect(await service.callTool('s', 'schedule_list', {})).toMatchObject([{ title: 'three hours' }, { title: 'five hours' }]);
    expect(await service.callTool('s', 'schedule_list', {})).toHaveLength(2);
    expect(q.reads).toEqual(['due 11:00-11:30', 'sessions s']);
    await service.close();
  });
});

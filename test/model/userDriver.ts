// Runs the user model's events against the real service and checks, after each, what a user
// would observe against the model's expectation: the Session's list (and each view's `state`),
// the catalog, the messages the Session holds, the task's history receipts, the task actor's
// state (through the inspector), and — across a restart — the stored domain and the catalog.
import type { TestPath } from '@xstate/graph';
import type { SnapshotFrom } from 'xstate';
import { decodeDocument } from '../../src/domain/codec/index.ts';
import type { CatalogEntry, ScheduleRecord, ScheduleView } from '../../src/domain/tasks/types.ts';
import { replay } from './paths.ts';
import { type ChangeKind, type UserContext, type UserEvent, type UserModel, userModel } from './userModel.ts';
import { RETRY_MS, SESSION, type StorageKind, type StoredDocument, World } from './world.ts';

const MINUTE = 60_000;

interface HistoryPage {
  readonly records: ReadonlyArray<{ readonly scheduledAt: string; readonly messageId: string }>;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** Creation arguments for each kind (relative to the clock where it matters). */
function createArgs(kind: UserContext['kind'], now: number): Record<string, unknown> {
  switch (kind) {
    case 'after':
      return { after_seconds: 600 };
    case 'at':
      return { at: iso(now + 20 * MINUTE) };
    case 'every':
      return { every_seconds: 600 };
    case 'daily':
      return { daily: { time: '09:00:00', time_zone: 'UTC' } };
    case 'weekly':
      return { weekly: { time: '09:30:00', time_zone: 'Asia/Shanghai', weekdays: [1, 3, 5] } };
    default:
      return { cron: { expression: '*/15 * * * *', time_zone: 'UTC' } };
  }
}

/** A timing change of this kind that differs from `record` (an equivalent rule would be a no-op). */
function changeArgs(change: ChangeKind, record: ScheduleRecord, now: number, n: number): unknown {
  switch (change) {
    case 'at':
      return { kind: 'at', at: iso(now + 2 * 60 * MINUTE + n * MINUTE) };
    case 'every':
      return { kind: 'every', every_seconds: record.kind === 'every' && record.everySeconds === 900 ? 1200 : 900 };
    case 'daily':
      return {
        kind: 'daily',
        time: record.kind === 'daily' && record.time === '10:15:00' ? '11:15:00' : '10:15:00',
        time_zone: 'Europe/Berlin',
      };
    case 'weekly': {
      const first = record.kind === 'weekly' && record.weekdays.join() === '2,4';
      return { kind: 'weekly', time: '07:45:00', time_zone: 'America/New_York', weekdays: first ? [6, 7] : [2, 4] };
    }
    default:
      return {
        kind: 'cron',
        expression: record.kind === 'cron' && record.expression === '*/20 * * * *' ? '5 * * * *' : '*/20 * * * *',
        time_zone: 'UTC',
      };
  }
}

export class UserDriver {
  private id: string | undefined;
  private edits = 0;

  constructor(private readonly world: World) {}

  private get svc() {
    return this.world.svc;
  }

  private async entry(): Promise<CatalogEntry> {
    const entry = (await this.svc.remote.catalog()).find((e) => e.record.id === this.id);
    if (entry === undefined) throw new Error(`task ${String(this.id)} is not in the catalog`);
    return entry;
  }

  /** Performs one model event on the real service and waits for what it caused. */
  async act(event: UserEvent, before: SnapshotFrom<UserModel>): Promise<void> {
    const { svc, world } = this;
    switch (event.type) {
      case 'create': {
        const view = await svc.callTool(SESSION, 'schedule_create', {
          prompt: 'Check the build',
          title: 'Build',
          ...createArgs(event.kind, world.clock.now()),
        });
        if ('code' in view) expect.unreachable(`create failed: ${JSON.stringify(view)}`);
        this.id = view.id;
        break;
      }
      case 'update': {
        const record = (await this.entry()).record;
        const n = ++this.edits;
        const edit =
          event.change === 'title' ? { title: `Build ${n}` } : { change: changeArgs(event.change, record, world.clock.now(), n) };
        const reply = await svc.callTool(SESSION, 'schedule_update', { id: this.id, ...edit });
        if (before.matches('ended')) expect('code' in reply ? reply.code : undefined).toBe('schedule_ended');
        else
          expect(reply, JSON.stringify(reply)).toMatchObject({
            id: this.id,
            ...(event.change === 'title' ? { title: `Build ${n}` } : { kind: event.change }),
          });
        break;
      }
      case 'delete':
        expect(await svc.callTool(SESSION, 'schedule_delete', { id: this.id })).toEqual({ id: this.id, deleted: true });
        break;
      case 'session.stop':
        await svc.archive.sessionStop(SESSION);
        break;
      case 'clock.due':
        await world.advanceTo((await this.entry()).record.scheduledAt);
        break;
      case 'deliver':
        world.sessions.release('ok');
        break;
      case 'fail':
        if (event.fault === 'storage') world.failNextCommit();
        world.sessions.release(event.fault === 'storage' ? 'ok' : event.fault);
        break;
      case 'clock.retry':
        await world.clock.advance(RETRY_MS);
        break;
      case 'write.other': {
        const other = await svc.callTool('other', 'schedule_create', { prompt: 'Other', title: 'Other', after_seconds: 30 * 86_400 });
        if ('code' in other) expect.unreachable(`create failed: ${JSON.stringify(other)}`);
        expect(await svc.callTool('other', 'schedule_delete', { id: other.id })).toEqual({ id: other.id, deleted: true });
        break;
      }
      case 'reopen': {
        // The rows are compared without the failure status: a failed receipt write (stage commit) is
        // not stored as one, so it is the one member a restart may change (test/service/failureStatus.test.ts).
        const withoutFailure = (entries: readonly CatalogEntry[]) => entries.map(({ failure: _, ...entry }) => entry);
        const catalog = withoutFailure(await svc.remote.catalog());
        const stored = await world.reopen();
        if (before.matches('committing')) {
          // the close wrote the receipt that waited: the stored rows are what the new service reads
          this.expectStored(stored, await this.svc.remote.catalog(), before.context.receipts + 1);
        } else {
          this.expectStored(stored, catalog, before.context.receipts);
          expect(withoutFailure(await this.svc.remote.catalog())).toEqual(catalog);
        }
        await world.clock.advance(0);
        break;
      }
    }
    await world.settle();
  }

  /** The stored document holds exactly the catalog's rows, the task with its receipts (prompts stored by reference, decoded). */
  private expectStored(stored: StoredDocument, catalog: readonly CatalogEntry[], receipts: number): void {
    expect(stored.version).toBe(1);
    const decoded = decodeDocument(structuredClone(stored)).tasks;
    const rows = decoded.map((row) => ({
      sessionId: row.sessionId,
      status: row.status,
      record: row.record,
      ...(row.lastDelivery === undefined ? {} : { lastDelivery: row.lastDelivery }),
    }));
    expect(rows, 'the stored rows').toEqual(catalog);
    const task = decoded.find((row) => row.record.id === this.id);
    if (task !== undefined) expect(task.deliveryHistory?.records ?? [], 'the stored receipts').toHaveLength(receipts);
  }

  /** Checks what a user observes against the model's expected state. */
  async check(expected: SnapshotFrom<UserModel>): Promise<void> {
    const { svc, world } = this;
    const ctx = expected.context;
    const list = (await svc.callTool(SESSION, 'schedule_list', {})) as ScheduleView[];
    const catalog = await svc.remote.catalog();
    const messages = world.sessions.fake.messages(SESSION);
    expect(messages, 'messages in the Session').toHaveLength(ctx.flushed);
    const inFlight = expected.matches('delivering') || expected.matches('orphaned');
    expect(world.sessions.held, 'delivery attempts in flight').toHaveLength(inFlight ? 1 : 0);
    const actor = world.inspector.actors().find((a) => a.kind === 'task' && a.id === this.id);

    if (expected.matches('empty') || expected.matches('orphaned')) {
      expect(list).toEqual([]);
      expect(catalog).toEqual([]);
      expect(actor).toBeUndefined();
      if (this.id !== undefined) {
        const page = (await svc.remote.history({ sessionId: SESSION, id: this.id, limit: 10 })) as { code?: string };
        expect(page.code).toBe('schedule_not_found');
      }
      return;
    }
    expect(catalog).toHaveLength(1);
    const [entry] = catalog;
    expect(entry).toMatchObject({ sessionId: SESSION, record: { id: this.id, kind: ctx.kind } });
    const page = (await svc.remote.history({ sessionId: SESSION, id: this.id ?? '', limit: 100 })) as HistoryPage;
    expect(page.records, 'history receipts').toHaveLength(ctx.receipts);
    const ids = new Set(messages.map((m) => m.messageId));
    for (const receipt of page.records)
      expect(ids.has(receipt.messageId), `receipt ${receipt.messageId} names a flushed message`).toBe(true);
    expect(entry?.lastDelivery?.messageId).toBe(page.records[0]?.messageId);

    if (expected.matches('ended')) {
      expect(entry?.status).toBe('inactive');
      expect(list).toEqual([]);
      expect(actor).toBeUndefined();
      return;
    }
    expect(entry?.status).toBe('active');
    expect(list.map((v) => v.id)).toEqual([this.id]);
    const waiting = expected.matches('delivering') || expected.matches('committing');
    const overdue = expected.matches('retrying') || (waiting && !ctx.retimed);
    expect(list[0]?.state, 'the view state').toBe(overdue ? 'overdue' : 'scheduled');
    // While its receipt waits for the write, the task actor waits for the write's retry; after a
    // failed attempt it waits for its retry — overdue at once once a title edit forgot the backoff.
    const actorState = expected.matches('committing')
      ? 'retrying'
      : expected.matches('retrying')
        ? ctx.backoffForgotten
          ? 'overdue'
          : 'retrying'
        : String(expected.value);
    expect(actor?.state, 'the task actor state').toBe(actorState);
  }
}

const EVENT_TYPES: ReadonlyArray<UserEvent['type']> = [
  'create',
  'update',
  'delete',
  'session.stop',
  'clock.due',
  'deliver',
  'fail',
  'clock.retry',
  'write.other',
  'reopen',
];

/** Runs one generated path on a fresh service, checking every state on the way against the replayed model. */
export async function runUserPath(path: TestPath<SnapshotFrom<UserModel>, UserEvent>, storage: StorageKind): Promise<void> {
  const world = await World.open(storage);
  const driver = new UserDriver(world);
  const expected = replay(
    userModel,
    path.steps.map((s) => s.event),
  );
  let at = 0;
  const act = async (step: { event: UserEvent }) => driver.act(step.event, expected[at - 1]!);
  try {
    await path.test({
      events: Object.fromEntries(EVENT_TYPES.map((type) => [type, act])),
      states: {
        '*': async (state) => {
          const exp = expected[at++]!;
          expect(state.value).toEqual(exp.value);
          await driver.check(exp);
        },
      },
    });
  } finally {
    await world.dispose();
  }
}

// Drives one real task through the task machine's events and checks the real task actor against
// the model. The task actor's own events come from the service, so each model event is realised
// by what makes the service send it: a tick by moving the clock to the target while another
// reminder of the Session is in flight (so the task waits, overdue, instead of starting at once);
// the start by letting that other delivery finish (and, after a failure, by the retry); a commit
// or a failure by ending the task's own held attempt; an update by `schedule_update`; a pause, a
// resume and a run now by `remote.pause`, `remote.resume` and `remote.trigger` — one that makes
// the task due while another reminder is in flight, as a tick does; one during the task's attempt
// a second after it started, while another reminder falls due behind it (that reminder then holds
// the Session, and the tick at the kept request is the timer waking). Whenever the task is overdue
// another reminder of its Session is in flight (after a failure too), so it waits for `start`.
// After each step it compares the task actor's state (through the inspector), the task's view and
// pause, its receipts (a run-now one marked manual) and its messages with the model, and the
// states the inspector recorded with the path so far.
import type { SnapshotFrom } from 'xstate';
import { isDueAt, type TaskEvent, type TaskMachine } from '../../machines/taskMachine.ts';
import type { ToolFailure } from '../../src/domain/reads/replies.ts';
import type { CatalogEntry, ScheduleView } from '../../src/domain/tasks/types.ts';
import { isManualCommit, isRequestTick, isRetryTick, stepOf, type TaskStep, viewState } from './taskEvents.ts';
import { OTHER_SESSION, SESSION, type World } from './world.ts';

const MINUTE = 60_000;
const iso = (ms: number): string => new Date(ms).toISOString();

/** Consecutive duplicates dropped. */
const collapse = (values: readonly string[]): string[] => values.filter((v, i) => i === 0 || v !== values[i - 1]);

export class TaskDriver {
  /** Receipts written, and messages appended (a receipt whose write failed waits for its retry). */
  private commits = 0;
  private messages = 0;
  private edits = 0;
  private readonly trail: string[] = ['scheduled'];

  private constructor(
    private readonly world: World,
    readonly id: string,
    private readonly recurring: boolean,
  ) {}

  /** Creates the task the model describes: due in ten minutes, a one-shot or every ten minutes. */
  static async start(world: World, recurring: boolean): Promise<TaskDriver> {
    const args = recurring ? { every_seconds: 600 } : { after_seconds: 600 };
    const view = (await world.svc.callTool(SESSION, 'schedule_create', { title: 'A', prompt: 'p', ...args })) as { id: string };
    await world.settle();
    return new TaskDriver(world, view.id, recurring);
  }

  private async entry(): Promise<CatalogEntry> {
    const entry = (await this.world.svc.remote.catalog()).find((e) => e.record.id === this.id);
    if (entry === undefined) throw new Error(`task ${this.id} is not in the catalog`);
    return entry;
  }

  /** The task actor's state, through the inspector (undefined once it has ended). */
  private actorState(): unknown {
    return this.world.inspector.actors().find((a) => a.kind === 'task' && a.id === this.id)?.state;
  }

  /**
   * Another reminder of the Session, due a second from now, whose delivery is then held in
   * flight; it must come before `target` when the task falls due by it (it is then not paused,
   * and its timer is not waiting for a retry).
   */
  private async holdTheSession(target?: number): Promise<void> {
    const { world } = this;
    const at = world.clock.now() + 1000;
    if (target !== undefined) expect(at, 'room for a reminder before the target').toBeLessThan(target);
    await world.svc.callTool(SESSION, 'schedule_create', { title: 'Blocker', prompt: 'b', at: iso(at) });
    await world.advanceTo(iso(at));
    await world.settle();
    expect(world.sessions.held, 'the other reminder is in flight').toHaveLength(1);
  }

  /**
   * A run-now request a second after the task's attempt started, while another reminder of the
   * Session falls due meanwhile: it waits for the attempt, then holds the Session in turn.
   */
  private async requestDuringTheAttempt(): Promise<void> {
    const { world } = this;
    const at = iso(world.clock.now() + 1000);
    await world.svc.callTool(SESSION, 'schedule_create', { title: 'Blocker', prompt: 'b', at });
    await world.advanceTo(at);
    await world.settle();
    expect(world.sessions.held, 'only the task is in flight').toHaveLength(1);
    expectNoFailure(await world.svc.remote.trigger({ sessionId: SESSION, id: this.id }));
  }

  /**
   * A resume or a run-now request outside an attempt. One that makes the task due is made while
   * another reminder of the Session is in flight (held first if none is: a pause keeps the task
   * from falling due by its target meanwhile), and the timer wakes for the rewritten row.
   */
  private async rewriteRunState(event: TaskEvent, call: () => Promise<ScheduleView | ToolFailure>): Promise<void> {
    const { world } = this;
    if ('row' in event && isDueAt(event.row, event.now) && world.sessions.held.length === 0) {
      const entry = await this.entry();
      await this.holdTheSession(entry.pausedAt === undefined ? Date.parse(entry.record.scheduledAt) : undefined);
    }
    expectNoFailure(await call());
    await world.clock.advance(0);
  }

  /** Makes the service send the task the model's event. */
  async act(event: TaskEvent): Promise<void> {
    const { world } = this;
    const step: TaskStep | undefined = stepOf(event);
    switch (step) {
      case 'tick': {
        // A run-now request the last commit kept is queued already: the timer wakes for it (another
        // reminder, made due during that attempt, is in flight by now).
        if (isRequestTick(event)) {
          expect(world.sessions.held, 'the other reminder is in flight').toHaveLength(1);
          await world.clock.advance(0);
          break;
        }
        // A failed task's retry: the clock moves to the retry time its failure status shows, while
        // the other reminder held since the failure is still in flight.
        if (isRetryTick(event)) {
          const retryAt = (await this.entry()).failure?.nextRetryAt;
          expect(retryAt, 'the failure status shows the retry').toBeDefined();
          expect(world.sessions.held, 'the other reminder is in flight').toHaveLength(1);
          await world.advanceTo(retryAt ?? '');
          break;
        }
        const target = Date.parse((await this.entry()).record.scheduledAt);
        if (world.sessions.held.length === 0) await this.holdTheSession(target);
        await world.advanceTo(iso(target));
        break;
      }
      case 'start':
        if (world.sessions.held.length > 0) world.sessions.release('ok');
        await world.settle();
        // After a failure an edit made the task due at once: the timer wakes for it.
        if (this.actorState() === 'overdue') await world.clock.advance(0);
        break;
      case 'title': {
        const reply = await world.svc.callTool(SESSION, 'schedule_update', { id: this.id, title: `Title ${++this.edits}` });
        expect('code' in reply ? reply.code : undefined, JSON.stringify(reply)).toBeUndefined();
        break;
      }
      case 'retime': {
        const n = ++this.edits;
        const record = (await this.entry()).record;
        const change = this.recurring
          ? { kind: 'every', every_seconds: record.kind === 'every' && record.everySeconds === 900 ? 1200 : 900 }
          : { kind: 'at', at: iso(world.clock.now() + 2 * 60 * MINUTE + n * MINUTE) };
        const reply = await world.svc.callTool(SESSION, 'schedule_update', { id: this.id, change });
        expect('code' in reply ? reply.code : undefined, JSON.stringify(reply)).toBeUndefined();
        break;
      }
      case 'pause':
        expectNoFailure(await world.svc.remote.pause({ sessionId: SESSION, id: this.id }));
        break;
      case 'resume':
        await this.rewriteRunState(event, () => world.svc.remote.resume({ sessionId: SESSION, id: this.id }));
        break;
      case 'trigger':
        if (this.actorState() === 'delivering') await this.requestDuringTheAttempt();
        else await this.rewriteRunState(event, () => world.svc.remote.trigger({ sessionId: SESSION, id: this.id }));
        break;
      case 'commit': {
        this.commits++;
        this.messages++;
        world.sessions.release('ok');
        await world.settle();
        const receipt = (await this.entry()).lastDelivery;
        expect(receipt?.trigger, 'the receipt of a run-now delivery says so').toBe(isManualCommit(event) ? 'manual' : undefined);
        break;
      }
      case 'write':
        // The Session acknowledges the reminder, and the receipt's write fails: it waits for the retry.
        world.failNextCommit();
        world.sessions.release('ok');
        this.messages++;
        break;
      case 'resolve':
      case 'flush':
        world.sessions.release(step);
        await world.settle();
        // The task waits for its retry while another reminder is in flight, so that once due again
        // (its retry, or an edit) it waits overdue, as after a tick.
        if (this.actorState() === 'retrying') await this.holdTheSession();
        break;
      case 'receipt': {
        // The retried write: at the retry time, or — with retry off — after any successful write
        // (a task of another Session is created).
        const retryAt = (await this.entry()).failure?.nextRetryAt;
        if (retryAt === undefined)
          await world.svc.callTool(OTHER_SESSION, 'schedule_create', { title: 'W', prompt: 'w', after_seconds: 86_400 });
        else await world.advanceTo(retryAt);
        this.commits++;
        break;
      }
      case 'receipt-fail': {
        const retryAt = (await this.entry()).failure?.nextRetryAt;
        expect(retryAt, 'the failure status shows the retry').toBeDefined();
        world.failNextCommit();
        await world.advanceTo(retryAt ?? '');
        break;
      }
      default:
        throw new Error(`no realisation for ${JSON.stringify(event)}`);
    }
    await world.settle();
  }

  /** Compares the real task with the model's state. */
  async check(expected: SnapshotFrom<TaskMachine>): Promise<void> {
    const { world } = this;
    const value = String(expected.value);
    this.trail.push(value);
    const actor = world.inspector.actors().find((a) => a.kind === 'task' && a.id === this.id);
    const list = (await world.svc.callTool(SESSION, 'schedule_list', {})) as ScheduleView[];
    const view = list.find((v) => v.id === this.id);
    const entry = await this.entry();
    if (value === 'inactive') {
      expect(actor, 'an ended task has no live actor').toBeUndefined();
      expect(view).toBeUndefined();
      expect(entry.status).toBe('inactive');
    } else {
      expect(actor?.state, 'the task actor state').toBe(value);
      expect(actor?.target).toBe(entry.record.scheduledAt);
      expect(view?.state, 'the view state').toBe(viewState(expected));
      expect(entry.pausedAt !== undefined, 'the catalog entry shows the pause').toBe(expected.context.row.pausedAt !== undefined);
    }
    const page = (await world.svc.remote.history({ sessionId: SESSION, id: this.id, limit: 100 })) as { records: readonly unknown[] };
    expect(page.records, 'receipts').toHaveLength(this.commits);
    const mine = world.sessions.fake.messages(SESSION).filter((m) => m.idempotencyKeys.some((k) => k.startsWith(`${this.id}@`)));
    expect(mine, 'messages carrying the task').toHaveLength(this.messages);
    const recorded = world.inspector
      .events()
      .filter((e) => e.type === 'snapshot' && e.actorId === this.id)
      .map((e) => String(e.state));
    expect(collapse(recorded), 'the states the inspector recorded').toEqual(collapse(this.trail));
  }
}

function expectNoFailure(reply: ScheduleView | ToolFailure): void {
  expect('code' in reply ? reply.code : undefined, JSON.stringify(reply)).toBeUndefined();
}

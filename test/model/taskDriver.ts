// Drives one real task through the task machine's events and checks the real task actor against
// the model. The task actor's own events come from the service, so each model event is realised
// by what makes the service send it: a tick by moving the clock to the target while another
// reminder of the Session is in flight (so the task waits, overdue, instead of starting at once);
// the start by letting that other delivery finish (or, after a failure, by the retry); a commit or
// a failure by ending the task's own held attempt; an update by `schedule_update`. After each step
// it compares the task actor's state (through the inspector), the task's view, its receipts and
// its messages with the model, and the states the inspector recorded with the path so far.
import type { SnapshotFrom } from 'xstate';
import type { TaskEvent, TaskMachine } from '../../machines/taskMachine.ts';
import type { CatalogEntry, ScheduleView } from '../../src/domain/types.ts';
import { stepOf, type TaskStep } from './taskEvents.ts';
import { RETRY_MS, SESSION, type World } from './world.ts';

const MINUTE = 60_000;
const iso = (ms: number): string => new Date(ms).toISOString();

/** Consecutive duplicates dropped. */
const collapse = (values: readonly string[]): string[] => values.filter((v, i) => i === 0 || v !== values[i - 1]);

export class TaskDriver {
  private commits = 0;
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

  /** Another reminder of the Session, due before the task, whose delivery is then held in flight. */
  private async holdTheSession(target: number): Promise<void> {
    const { world } = this;
    const at = world.clock.now() + 1000;
    expect(at, 'room for a reminder before the target').toBeLessThan(target);
    await world.svc.callTool(SESSION, 'schedule_create', { title: 'Blocker', prompt: 'b', at: iso(at) });
    await world.advanceTo(iso(at));
    await world.settle();
    expect(world.sessions.held, 'the other reminder is in flight').toHaveLength(1);
  }

  /** Makes the service send the task the model's event. */
  async act(event: TaskEvent): Promise<void> {
    const { world } = this;
    const step: TaskStep | undefined = stepOf(event);
    switch (step) {
      case 'tick': {
        const target = Date.parse((await this.entry()).record.scheduledAt);
        if (world.sessions.held.length === 0) await this.holdTheSession(target);
        await world.advanceTo(iso(target));
        break;
      }
      case 'start':
        if (world.sessions.held.length > 0) world.sessions.release('ok');
        else await world.clock.advance(RETRY_MS);
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
      case 'commit':
        this.commits++;
        world.sessions.release('ok');
        break;
      case 'resolve':
      case 'flush':
        world.sessions.release(step);
        break;
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
      expect(view?.state, 'the view state').toBe(value === 'scheduled' ? 'scheduled' : 'overdue');
    }
    const page = (await world.svc.remote.history({ sessionId: SESSION, id: this.id, limit: 100 })) as { records: readonly unknown[] };
    expect(page.records, 'receipts').toHaveLength(this.commits);
    const mine = world.sessions.fake.messages(SESSION).filter((m) => m.idempotencyKeys.some((k) => k.startsWith(`${this.id}@`)));
    expect(mine, 'messages carrying the task').toHaveLength(this.commits);
    const recorded = world.inspector
      .events()
      .filter((e) => e.type === 'snapshot' && e.actorId === this.id)
      .map((e) => String(e.state));
    expect(collapse(recorded), 'the states the inspector recorded').toEqual(collapse(this.trail));
  }
}

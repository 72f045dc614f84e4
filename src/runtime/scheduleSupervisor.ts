// `scheduleSupervisor`: the supervisor machine with its real effect actors, the logic a Host built
// on XState invokes (`invoke: { src: scheduleSupervisor, input: { sessions, storage, clock } }`)
// and `createScheduleService` wraps. The machine stays pure; the effects live here. `openDomain`
// reads the Host's ports from the input, opens the storage and creates the `ScheduleRuntime` — the
// in-memory table, the due index and its timer, the restore limiter and the work counter — which
// the other effect actors (the slot runner, the timer, each Session's delivery attempt, the close)
// receive as input.
import { fromCallback, fromPromise } from 'xstate';
import type {
  ActorEffect,
  DeliveryInput,
  DeliveryOutcome,
  ScheduleReplyBody,
  ScheduleReplyError,
  SupervisorRuntime,
} from '../../machines/events.ts';
import { sessionGroupMachine } from '../../machines/sessionGroupMachine.ts';
import { sessionMachine } from '../../machines/sessionMachine.ts';
import {
  type OpenedDomain,
  type RuntimeInput,
  type SlotRunEvent,
  type SupervisorEvent,
  type SupervisorInput,
  supervisorMachine,
  type TimerEvent,
} from '../../machines/supervisorMachine.ts';
import { jsonFileStorage } from '../adapters/jsonFileStorage.ts';
import { systemClock } from '../adapters/systemClock.ts';
import { dueAtMs } from '../domain/due.ts';
import type { TaskRow } from '../domain/types.ts';
import type { SlotReply } from '../planning/slotPlan.ts';
import type { Clock, Logger, ScheduleStorage, SessionController } from '../ports.ts';
import { Activity } from './activity.ts';
import { type ResolvedConfig, resolveConfig } from './config.ts';
import { deliverBatch } from './deliveryAttempt.ts';
import { Limiter } from './limiter.ts';
import { Scheduler } from './scheduler.ts';
import { runSlot, type SlotRunnerDeps } from './slotRunner.ts';
import { consoleLogger, isSupervisorInput } from './supervisorInput.ts';

export type { ScheduleSupervisorInput } from './supervisorInput.ts';

import { TaskTable } from './taskTable.ts';
import { warnOfDriftAtOpen } from './tzdataVersion.ts';

/** The ports with their defaults filled in. */
interface Ports {
  readonly sessions: SessionController;
  readonly storage: ScheduleStorage;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly config: ResolvedConfig;
}

type TimerSink = (event: SupervisorEvent) => void;

/** A passivated task as the inspector lists it. */
interface PassivatedTask {
  readonly id: string;
  readonly session: string;
  readonly state: 'passivated';
  readonly target: string;
  readonly title: string;
}

/** The effects of one supervisor: what its effect actors share. */
export class ScheduleRuntime implements SupervisorRuntime {
  readonly activity = new Activity();
  readonly attempting = new Set<string>();
  readonly restores: Limiter;
  readonly scheduler: Scheduler;
  private sink: TimerSink | null = null;

  constructor(
    readonly ports: Ports,
    readonly table: TaskTable,
  ) {
    this.restores = new Limiter(ports.config.maxConcurrentRestores);
    this.scheduler = new Scheduler({
      clock: ports.clock,
      config: ports.config,
      activity: this.activity,
      sessionOf: (id) => table.get(id)?.sessionId,
      dueOf: (id) => {
        const row = table.get(id);
        return row === undefined || row.status !== 'active' ? undefined : dueAtMs(row);
      },
      logger: ports.logger,
      onDue: (now, due) => this.sink?.({ type: 'clock.tick', now, due }),
      // A pending receipt's write is retried like a flushed attempt's commit (its slot ends the activity).
      onCommitDue: (sessionId, outcome) => {
        if (this.sink === null) return;
        this.activity.begin();
        this.sink({ type: 'delivery.flushed', sessionId, outcome });
      },
      rowOf: (id) => table.get(id),
      onActivate: (rows) => this.sink?.({ type: 'tasks.activate', rows }),
    });
  }

  /**
   * A slot's effects without those of passivated tasks: their rows are committed and queued, but
   * no actor is spawned or told (a change that brings a task within the horizon has already made
   * it live, so its put spawns it).
   */
  liveEffects(effects: readonly ActorEffect[]): readonly ActorEffect[] {
    const scheduler = this.scheduler;
    if (scheduler.passiveCount === 0) return effects;
    const out: ActorEffect[] = [];
    for (const effect of effects) {
      if (effect.type === 'put') {
        if (!scheduler.isPassive(effect.row.record.id)) out.push(effect);
      } else if (effect.type === 'spawn') {
        const rows = effect.rows.filter((row) => !scheduler.isPassive(row.record.id));
        if (rows.length === effect.rows.length) out.push(effect);
        else if (rows.length > 0) out.push({ type: 'spawn', rows });
      } else out.push(effect);
    }
    return out;
  }

  /**
   * The passivated tasks as an inspector lists them — of one Session, or all — at most `max` of
   * them, with how many there are (the supervisor's context holds this handle).
   */
  passivatedTasks(sessionId: string | undefined, max: number): { tasks: PassivatedTask[]; total: number } {
    const tasks: PassivatedTask[] = [];
    let total = 0;
    for (const id of this.scheduler.passivated()) {
      const row = this.table.get(id);
      if (row === undefined || (sessionId !== undefined && row.sessionId !== sessionId)) continue;
      total++;
      if (tasks.length < max)
        tasks.push({ id, session: row.sessionId, state: 'passivated', target: row.record.scheduledAt, title: row.record.title });
    }
    return { tasks, total };
  }

  get slotDeps(): SlotRunnerDeps {
    const { storage, clock, logger, config } = this.ports;
    return { table: this.table, storage, clock, logger, config, scheduler: this.scheduler, attempting: this.attempting };
  }

  whenIdle(): Promise<void> {
    return this.activity.whenIdle();
  }

  callBegan(): void {
    this.activity.begin();
  }

  callEnded(): void {
    this.activity.end();
  }

  toJSON(): string {
    return 'agent-schedule runtime';
  }

  /** The timer actor started: due tasks go to `sink`, and the timer is armed. */
  attachTimer(sink: TimerSink): void {
    this.sink = sink;
    this.scheduler.rearm();
  }

  /** The timer actor stopped. */
  detachTimer(): void {
    this.scheduler.stop();
    this.sink = null;
  }
}

/** The concrete runtime behind the machines' opaque handle. */
function runtimeOf(runtime: SupervisorRuntime | null | undefined): ScheduleRuntime {
  if (runtime instanceof ScheduleRuntime) return runtime;
  throw new Error('The schedule supervisor has no open domain.');
}

/** What a call settles with, in the reply's shape. */
function replyBody(reply: SlotReply): ScheduleReplyBody {
  if ('resolve' in reply) return { ok: true, value: reply.resolve };
  return { ok: false, error: replyError(reply.reject) };
}

function replyError(error: unknown): ScheduleReplyError {
  return error instanceof Error ? error : new Error(String(error), { cause: error });
}

const openDomain = fromPromise<OpenedDomain, SupervisorInput>(async ({ input }) => {
  if (!isSupervisorInput(input)) throw new TypeError('scheduleSupervisor needs input.sessions with resolveAgent(sessionId).');
  const config = resolveConfig(input.config);
  const storage = input.storage ?? jsonFileStorage({ path: './data/schedule.json' });
  const ports: Ports = {
    sessions: input.sessions,
    storage,
    clock: input.clock ?? systemClock,
    logger: input.logger ?? consoleLogger,
    config,
  };
  const table = new TaskTable(await storage.open());
  warnOfDriftAtOpen(table.activeRowsAll(), table.tzdata, ports.logger);
  const runtime = new ScheduleRuntime(ports, table);
  // Every active row is queued; only those due within the passivation horizon get an actor now.
  const { scheduler } = runtime;
  scheduler.trackRestored(table.activeRowsAll());
  const activeRows: TaskRow[] = [];
  if (scheduler.passiveCount === 0) activeRows.push(...table.activeRowsAll());
  else for (const row of table.activeRowsAll()) if (!scheduler.isPassive(row.record.id)) activeRows.push(row);
  return { activeRows, runtime };
});

const slotRunner = fromCallback<SlotRunEvent, RuntimeInput>(({ input, sendBack, receive }) => {
  const runtime = runtimeOf(input.runtime);
  receive((event) => {
    const count = event.commands.length;
    void runSlot(runtime.slotDeps, event.commands).then((outcome) => {
      const effects = runtime.liveEffects(outcome.effects);
      sendBack({ type: 'slot.done', outcome: { ...outcome, effects, reply: replyBody(outcome.reply) }, count });
      // Internal commands are delivery commits: the attempt that began in deliverBatch ends here.
      for (const command of event.commands) if (command.requestId === null) runtime.activity.end();
    });
  });
});

const timer = fromCallback<TimerEvent, RuntimeInput>(({ input, sendBack, receive }) => {
  const runtime = runtimeOf(input.runtime);
  const { scheduler, activity } = runtime;
  let draining = false;
  const drain = (): void => {
    if (draining) return;
    draining = true;
    scheduler.stop();
    scheduler.drainPendingCommits(); // one last write of receipts still waiting; lost only if it fails
    void activity.whenIdle().then(() => sendBack({ type: 'timer.drained' }));
  };
  runtime.attachTimer(sendBack);
  receive((event) => {
    if (event.type === 'timer.drain') {
      drain();
      return;
    }
    runtime.attempting.delete(event.sessionId);
    scheduler.failed(event.ids, runtime.ports.clock.now(), [
      { ids: event.ids, stage: 'resolve', message: 'The delivery attempt ended with an unexpected error.' },
    ]);
    scheduler.rearm();
    activity.end();
  });
  if (input.drain === true) drain();
  return () => runtime.detachTimer();
});

const closeDomain = fromPromise<void, RuntimeInput>(async ({ input }) => {
  const runtime = runtimeOf(input.runtime);
  try {
    await runtime.ports.storage.close();
  } catch (error) {
    runtime.ports.logger.error('The schedule storage did not close cleanly.', { cause: error });
    throw error;
  }
});

const deliveryAttempt = fromPromise<DeliveryOutcome, DeliveryInput>(({ input }) => {
  const runtime = runtimeOf(input.runtime);
  runtime.activity.begin();
  runtime.attempting.add(input.sessionId);
  const { sessions, clock, logger } = runtime.ports;
  return deliverBatch(
    { sessions, clock, logger, restores: runtime.restores, pendingCommits: runtime.scheduler.pendingCommits },
    { sessionId: input.sessionId, rows: input.rows },
  );
});

/**
 * The scheduler as actor logic: input `ScheduleSupervisorInput`; accepts `schedule.call` and
 * `schedule.close`; answers `schedule.reply` (to `replyTo`, else the parent) and tells the parent
 * `schedule.changed` after each committed change. A domain that cannot be opened ends it with
 * status `error` (a `ScheduleError` with code `corrupt_schedule_log`).
 */
export const scheduleSupervisor = supervisorMachine.provide({
  actors: {
    openDomain,
    slotRunner,
    timer,
    closeDomain,
    sessionGroup: sessionGroupMachine.provide({
      actors: { session: sessionMachine.provide({ actors: { deliverBatch: deliveryAttempt } }) },
    }),
  },
});

export type ScheduleSupervisor = typeof scheduleSupervisor;

// `supervisorWith`: the supervisor machine with its real effect actors — with the default ports
// filled in (src/supervisor.ts), the `scheduleSupervisor` a Host built on XState invokes
// (`invoke: { src: scheduleSupervisor, input: { sessions, storage, clock } }`) and
// `createScheduleService` wraps. The machine stays pure; the effects live here. `openDomain`
// reads the Host's ports from the input, opens the storage and creates the `ScheduleRuntime` — the
// in-memory table, the due index and its timer, the restore limiter and the work counter — which the
// other effect actors (the slot runner, the timer, the runner of every Session's delivery
// attempts, the close) receive as input.
import { type AnyActorRef, fromCallback, fromPromise } from 'xstate';
import { anyAttemptInFlight, isAttempting, sessionActorCount } from '../../machines/actorLookup.ts';
import type { ActorEffect, FlushedAttempt, SupervisorRuntime, TaskWake } from '../../machines/events.ts';
import type { AttemptReply, AttemptRunEvent } from '../../machines/sessionMachine.ts';
import {
  type OpenedDomain,
  type RuntimeInput,
  type SlotRunEvent,
  type SupervisorEvent,
  type SupervisorInput,
  supervisorMachine,
  type TimerEvent,
} from '../../machines/supervisorMachine.ts';
import type { Clock, Logger, ScheduleLevels, ScheduleStorage, SessionController, StoredRest } from '../ports.ts';
import { clusterMember } from './clusterMember.ts';
import { type ResolvedConfig, resolveConfig } from './config.ts';
import { deliverBatch } from './deliveryAttempt.ts';
import { DeliverySummary } from './deliverySummary.ts';
import { IdleWatch, type Quiet } from './idleWatch.ts';
import { InDoubtCalls } from './inDoubtCalls.ts';
import { Limiter } from './limiter.ts';
import { type MetricsReporter, metricsReporter } from './metricsReporter.ts';
import { RestReader, readAheadMs } from './restReader.ts';
import { Scheduler } from './scheduler.ts';
import { type ActorReader, runSlot, type SlotRunnerDeps } from './slotRunner.ts';
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
  readonly metrics: MetricsReporter;
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
  readonly restores: Limiter;
  /** The supervisor whose effects these are (set when its slot runner starts): the actors are read through it. */
  private supervisor: AnyActorRef | null = null;
  private readonly idle = new IdleWatch(
    () => this.supervisor,
    () => this.quiet(),
  );
  readonly scheduler: Scheduler;
  private sink: TimerSink | null = null;
  /** Idempotent calls whose write came back uncertain (retried with the same batch). */
  private readonly inDoubt = new InDoubtCalls();
  /** Deliveries and failed attempts since the last info summary. */
  readonly summary: DeliverySummary;
  /** Ends the metrics port's reading of this supervisor's levels (while the timer runs). */
  private unobserve: (() => void) | null = null;
  /** The rows the open left in storage (absent when it read every row). */
  readonly rest: RestReader | undefined;

  constructor(
    readonly ports: Ports,
    readonly table: TaskTable,
    rest?: StoredRest,
  ) {
    this.restores = new Limiter(ports.config.maxConcurrentRestores);
    this.summary = new DeliverySummary(ports.clock, ports.logger, ports.config.deliverySummaryIntervalMs);
    this.scheduler = new Scheduler({
      clock: ports.clock,
      config: ports.config,
      sessionOf: (id) => table.get(id)?.sessionId,
      logger: ports.logger,
      onDue: (now, due) => this.sink?.({ type: 'clock.tick', now, due }),
      // A waiting receipt's write is retried like a flushed attempt's commit.
      onCommitDue: (flushed) => this.sink?.({ type: 'delivery.flushed', flushed }),
      rowOf: (id) => table.get(id),
      activeCountOf: (sessionId) => table.activeCount(sessionId),
      activeRowsOf: (sessionId) => table.activeRows(sessionId),
      onActivate: (rows) => this.sink?.({ type: 'tasks.activate', rows }),
      onFailing: (id) => table.noteFailing(id),
      onAttemptFailed: (stage, reminders) => ports.metrics.attemptFailed(stage, reminders),
      onReadDue: (now) => this.rest?.readDue(now),
    });
    const horizonMs = ports.config.passivationHorizonMs;
    this.rest =
      rest === undefined || horizonMs === null
        ? undefined
        : new RestReader({
            rest,
            table,
            scheduler: this.scheduler,
            clock: ports.clock,
            logger: ports.logger,
            horizonMs,
            settled: () => this.idle.recheck(),
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
      if (effect.type === 'task.updated') {
        if (!scheduler.isPassive(effect.row.record.id)) out.push(effect);
      } else if (effect.type === 'tasks.spawn') {
        const rows = effect.rows.filter((row) => !scheduler.isPassive(row.record.id));
        if (rows.length === effect.rows.length) out.push(effect);
        else if (rows.length > 0) out.push({ type: 'tasks.spawn', rows });
      } else out.push(effect);
    }
    return out;
  }

  /**
   * The passivated tasks as an inspector lists them — of one Session, or all, and only those
   * `keep` accepts when given — at most `max` of them, with how many there are (the supervisor's
   * context holds this handle).
   */
  passivatedTasks(
    sessionId: string | undefined,
    max: number,
    keep?: (task: PassivatedTask) => boolean,
  ): { tasks: PassivatedTask[]; total: number } {
    const tasks: PassivatedTask[] = [];
    let total = 0;
    for (const id of this.scheduler.passivated()) {
      const row = this.table.get(id);
      if (row === undefined || (sessionId !== undefined && row.sessionId !== sessionId)) continue;
      // Without `keep`, only the listed tasks are built.
      const task =
        keep === undefined && tasks.length >= max
          ? undefined
          : ({ id, session: row.sessionId, state: 'passivated', target: row.record.scheduledAt, title: row.record.title } as const);
      if (keep !== undefined && task !== undefined && !keep(task)) continue;
      total++;
      if (task !== undefined && tasks.length < max) tasks.push(task);
    }
    return { tasks, total };
  }

  get slotDeps(): SlotRunnerDeps {
    const { storage, clock, logger, config, metrics } = this.ports;
    const { table, scheduler, actors, inDoubt, summary, rest } = this;
    return { table, storage, clock, logger, config, scheduler, actors, inDoubt, summary, metrics, ...(rest === undefined ? {} : { rest }) };
  }

  get retry(): ResolvedConfig['retry'] {
    return this.ports.config.retry;
  }

  /** The slot runner started under `supervisor`: the actors are read through it from now on. */
  attachSupervisor(supervisor: AnyActorRef | undefined): void {
    this.supervisor = supervisor ?? null;
  }

  /** The attempt in flight, read from the Session actor that owns it, and a task's failure status, as its actor reported it. */
  readonly actors: ActorReader = {
    isAttempting: (sessionId) => this.supervisor !== null && isAttempting(this.supervisor, sessionId),
    failureOf: (id) => this.scheduler.failureOf(id),
  };

  /** A task actor reported its wake: the timer keys the task by it (and is armed for it, once it runs). */
  taskWake(wake: TaskWake): void {
    this.scheduler.reported(wake);
    if (this.sink !== null) this.scheduler.rearm();
  }

  whenIdle(): Promise<void> {
    return this.idle.whenIdle();
  }

  /** Whether anything is in progress: the supervisor's and the Session actors' states, and due Sessions a wake has yet to hand out. */
  private quiet(): Quiet {
    const supervisor = this.supervisor;
    if (supervisor === null) return 'idle';
    const snapshot = supervisor.getSnapshot();
    if (snapshot.status !== 'active' || snapshot.matches('closed')) return 'idle';
    if (!snapshot.matches({ running: 'idle' }) || snapshot.context.queue.size > 0) return 'busy';
    if (this.scheduler.handingOut || anyAttemptInFlight(supervisor) || this.rest?.reading === true) return 'busy';
    return this.scheduler.wakeQueued ? 'soon' : 'idle';
  }

  /** The levels the metrics port reads: the mailbox's depth and the Session actors, from the supervisor. */
  levels(): ScheduleLevels {
    const supervisor = this.supervisor;
    const snapshot = supervisor?.getSnapshot();
    if (supervisor === null || snapshot?.status !== 'active') return { mailboxDepth: 0, openSessions: 0 };
    return { mailboxDepth: snapshot.context.queue.size, openSessions: sessionActorCount(supervisor) };
  }

  toJSON(): string {
    return 'agent-schedule runtime';
  }

  /** The timer actor started: due tasks go to `sink`, the timer is armed, and the metrics port may read the levels. */
  attachTimer(sink: TimerSink): void {
    this.sink = sink;
    this.scheduler.rearm();
    this.unobserve ??= this.ports.metrics.observe(() => this.levels());
  }

  /** The timer actor stopped (the supervisor closes or stops). */
  detachTimer(): void {
    this.scheduler.stop();
    this.sink = null;
    this.unobserve?.();
    this.unobserve = null;
  }
}

/** The concrete runtime behind the machines' opaque handle. */
function runtimeOf(runtime: SupervisorRuntime | null | undefined): ScheduleRuntime {
  if (runtime instanceof ScheduleRuntime) return runtime;
  throw new Error('The schedule supervisor has no open domain.');
}

/**
 * The ports the supervisor uses when its input names none, given by the file that assembles the
 * public supervisor (src/supervisor.ts): the runtime touches no adapter itself.
 */
export interface DefaultPorts {
  /** The storage opened when the input names none. */
  readonly storage: () => ScheduleStorage;
  readonly clock: Clock;
}

const openDomainWith = (defaults: DefaultPorts) =>
  fromPromise<OpenedDomain, SupervisorInput>(async ({ input }) => {
    if (!isSupervisorInput(input)) throw new TypeError('scheduleSupervisor needs input.sessions with resolveAgent(sessionId).');
    const config = resolveConfig(input.config);
    const storage = input.storage ?? defaults.storage();
    const logger = input.logger ?? consoleLogger;
    const ports: Ports = {
      sessions: input.sessions,
      storage,
      clock: input.clock ?? defaults.clock,
      logger,
      config,
      metrics: metricsReporter(input.metrics, logger),
    };
    // While tasks passivate, only the rows due soon need be read; a storage that answers queries
    // leaves the rest stored until a call or the approaching horizon needs them.
    const horizon = config.passivationHorizonMs;
    const domain = await storage.open(horizon === null ? undefined : { dueBefore: ports.clock.now() + readAheadMs(horizon) });
    const table = new TaskTable(domain);
    // Both read only the active rows of the table's own iteration (inactive ones are skipped).
    warnOfDriftAtOpen(table.allRows(), table.tzdata, ports.logger);
    const runtime = new ScheduleRuntime(ports, table, domain.rest);
    // Every active row is queued; only those due within the passivation horizon get an actor now.
    const activeRows = runtime.scheduler.trackRestored(table.allRows());
    return { activeRows, runtime };
  });

const slotRunner = fromCallback<SlotRunEvent, RuntimeInput>(({ input, sendBack, receive, self }) => {
  const runtime = runtimeOf(input.runtime);
  runtime.attachSupervisor(self._parent);
  receive((event) => {
    const count = event.commands.length;
    void runSlot(runtime.slotDeps, event.commands).then((outcome) => {
      sendBack({ type: 'slot.done', outcome: { ...outcome, effects: runtime.liveEffects(outcome.effects) }, count });
    });
  });
});

const timer = fromCallback<TimerEvent, RuntimeInput>(({ input, sendBack, receive }) => {
  const runtime = runtimeOf(input.runtime);
  const { scheduler } = runtime;
  let draining = false;
  const drain = (): void => {
    if (draining) return;
    draining = true;
    scheduler.handOutWaiting(); // a wake's due Sessions still waiting for their turn are delivered before the close
    scheduler.stop();
    scheduler.drainReceipts(); // one last write of receipts still waiting; lost only if it fails
    void runtime.whenIdle().then(() => sendBack({ type: 'timer.drained' }));
  };
  runtime.attachTimer(sendBack);
  receive((event) => {
    if (event.type === 'timer.drain') {
      drain();
      return;
    }
    runtime.summary.failed(scheduler.failed(event.causes));
    scheduler.rearm();
    // The failure statuses the actors now hold are written with their rows, in a slot of their own.
    const ids = [...new Set(event.causes.flatMap((cause) => cause.ids))];
    if (ids.length > 0) sendBack({ type: 'failures.taken', ids });
  });
  if (input.drain === true) drain();
  return () => runtime.detachTimer();
});

const closeDomain = fromPromise<void, RuntimeInput>(async ({ input }) => {
  const runtime = runtimeOf(input.runtime);
  // The work is drained: what the last summary has not told yet is told now.
  runtime.summary.flush();
  try {
    await runtime.ports.storage.close();
  } catch (error) {
    runtime.ports.logger.error('The schedule storage did not close cleanly.', { cause: error });
    throw error;
  }
});

const attemptRunner = fromCallback<AttemptRunEvent, RuntimeInput>(({ input, receive, sendBack }) => {
  const runtime = runtimeOf(input.runtime);
  const { sessions, clock, logger } = runtime.ports;
  const receiptWaits = (id: string): boolean => runtime.scheduler.receiptOf(id) !== undefined;
  const deps = { sessions, clock, logger, restores: runtime.restores, receiptWaits };
  // Attempts flushed in the same turn of the microtask queue (a burst of Sessions whose flushes
  // settle together) reach the supervisor in one event; one flushed alone, in its own.
  let flushed: FlushedAttempt[] = [];
  const handOver = (): void => {
    const batch = flushed;
    flushed = [];
    sendBack({ type: 'delivery.flushed', flushed: batch });
  };
  receive((event) => {
    const { replyTo } = event;
    // A Session retired while its attempt ran is not answered (its actor is stopped).
    const answer = (reply: AttemptReply): void => {
      if (replyTo.getSnapshot().status === 'active') replyTo.send(reply);
    };
    // The Session learns that its attempt is flushed, then the supervisor's mailbox takes the outcome.
    deliverBatch(deps, { sessionId: event.sessionId, rows: event.rows }).then(
      (outcome) => {
        answer({ type: 'attempt.done' });
        if (flushed.length === 0) queueMicrotask(handOver);
        flushed.push({ sessionId: event.sessionId, outcome });
      },
      (error: unknown) => answer({ type: 'attempt.failed', error }),
    );
  });
});

/**
 * The supervisor machine with its effect actors, using `defaults` for the ports its input leaves
 * out. The public `scheduleSupervisor` (src/supervisor.ts) is this with the file storage and the
 * system clock.
 */
export function supervisorWith(defaults: DefaultPorts) {
  return supervisorMachine.provide({
    actors: {
      openDomain: openDomainWith(defaults),
      slotRunner,
      timer,
      closeDomain,
      attemptRunner,
      clusterMember,
    },
  });
}

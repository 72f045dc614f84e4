// One actor per Session with active tasks, between its Session group and that Session's task
// actors. It owns its task actors — in task groups of at most 64 (`taskGroupMachine.ts`), new
// tasks going to the first group with room, restored ones spawned in one event per group, their
// events sent straight to each task's actor — gathers the Session's due tasks into one delivery
// attempt at a time (`idle` → `delivering` → `committing` → `idle`).
// The attempt itself — resolve the Agent, append, flush — runs in the supervisor's long-lived
// attempt runner (its `attempts` input): the Session sends it `attempt.run`; the runner answers
// `attempt.done` and hands the flushed outcome to the supervisor, whose mailbox commits it, so an
// attempt spawns no actor and its outcome takes no hop through the Session group.
import { type ActorRef, enqueueActions, type Snapshot, setup } from 'xstate';
import { DEFAULT_RETRY } from '../src/domain/tasks/retry.ts';
import type { TaskRow } from '../src/domain/tasks/types.ts';
import type { SupervisorRuntime, TaskFailures, TasksFailedEvent } from './events.ts';
import {
  type ContextPatch,
  type EffectArgs,
  flatMachineLogic,
  machineEffects,
  machineGuards,
  machineUpdates,
  type Outbox,
} from './flatLogic.ts';
import { taskGroupMachine } from './taskGroupMachine.ts';
import { GroupStops, TaskIndex } from './taskIndex.ts';

export type SessionEvent =
  /** Spawns task actors for active rows (all restored rows of a Session arrive in one event). */
  | { readonly type: 'tasks.spawn'; readonly rows: readonly TaskRow[] }
  /** A committed change to an active row. */
  | { readonly type: 'task.updated'; readonly row: TaskRow; readonly now: number }
  /** A retried receipt write committed the delivery of an active row. */
  | { readonly type: 'delivery.committed'; readonly row: TaskRow; readonly now: number }
  /** Deleted rows: their actors are stopped. */
  | { readonly type: 'tasks.remove'; readonly ids: readonly string[] }
  /** The timer found these tasks due. */
  | { readonly type: 'tasks.due'; readonly now: number; readonly ids: readonly string[] }
  /** The supervisor committed (or could not commit) the attempt in flight. */
  | {
      readonly type: 'delivery.settle';
      readonly committed: readonly TaskRow[];
      readonly failures: readonly TaskFailures[];
      readonly now: number;
    }
  /** The retried write of acknowledged receipts failed again. */
  | { readonly type: 'receipts.failed'; readonly failures: readonly TaskFailures[]; readonly now: number }
  /** Retry now: these failed tasks are tried again at once. */
  | { readonly type: 'tasks.retry'; readonly ids: readonly string[]; readonly now: number }
  /** Sent to itself after the ticks of a `tasks.due`: the task actors have taken them. */
  | { readonly type: 'tasks.ticked' }
  /** The attempt runner flushed the attempt in flight and handed its outcome to the supervisor. */
  | { readonly type: 'attempt.done' }
  /** The attempt in flight ended with an unexpected error (the runner never answers with a failed outcome otherwise). */
  | { readonly type: 'attempt.failed'; readonly error: unknown };

/** What a Session asks its attempt runner: deliver these due rows, and answer `replyTo`. */
export interface AttemptRunEvent {
  readonly type: 'attempt.run';
  readonly sessionId: string;
  /** The due rows; the attempt reads the clock itself when it chooses their occurrences. */
  readonly rows: readonly TaskRow[];
  /** The Session actor, which receives `attempt.done` or `attempt.failed`. */
  readonly replyTo: ActorRef<Snapshot<unknown>, AttemptReply>;
}

/** What the attempt runner answers a Session. */
export type AttemptReply = Extract<SessionEvent, { readonly type: 'attempt.done' | 'attempt.failed' }>;

/** The actor that runs the delivery attempts of every Session of a supervisor. */
export type AttemptRunnerRef = ActorRef<Snapshot<unknown>, AttemptRunEvent>;

/** A Session actor's input: its id, the effects' handle, and the runner of its attempts. */
export interface SessionInput {
  readonly sessionId: string;
  readonly runtime?: SupervisorRuntime | undefined;
  readonly attempts?: AttemptRunnerRef | undefined;
}

export interface SessionContext {
  readonly sessionId: string;
  /** The effects' handle: how failed attempts are retried (absent in a machine tested on its own). */
  readonly runtime: SupervisorRuntime | undefined;
  /** Runs this Session's delivery attempts (absent: an attempt fails at once). */
  readonly attempts: AttemptRunnerRef | undefined;
  /** Ids reported due and not yet part of an attempt. */
  readonly due: readonly string[];
  /** The rows of the attempt in flight. */
  readonly inFlight: readonly TaskRow[];
  /** The wall clock of the latest `tasks.due` event (used when an attempt fails without an outcome). */
  readonly now: number;
  /** Ticks were sent and have not reached the task actors yet: no attempt starts before they have. */
  readonly ticking: boolean;
}

/** Why an attempt that ended with an unexpected error failed its tasks. */
const UNEXPECTED_END = 'The delivery attempt ended with an unexpected error.';

/** The event that tells a task it is part of the attempt starting (one object for every task). */
const START = { type: 'delivery.start' } as const;

/** The event a Session sends itself after the ticks of a `tasks.due`. */
const TICKED = { type: 'tasks.ticked' } as const;

/** What the Session's effects read. */
type SessionArgs = EffectArgs<SessionContext, SessionEvent>;

/** Sends each task of `failures` its `delivery.failed`. */
function sendFailures(index: TaskIndex, outbox: Pick<Outbox, 'send'>, failures: readonly TaskFailures[], now: number): void {
  for (const { ids, failure } of failures) {
    const failed = { type: 'delivery.failed', now, failure } as const;
    for (const id of ids) {
      const found = index.find(id);
      if (found !== undefined) outbox.send(found.task, failed);
    }
  }
}

/** The Session machine's guards, as plain predicates (its `setup` and its fast logic both run these). */
const sessionGuards = {
  /** Tasks were reported due and their ticks have reached them. */
  hasDue: (context: SessionContext) => context.due.length > 0 && !context.ticking,
  nothingInFlight: (context: SessionContext) => context.inFlight.length === 0,
};

/** The Session machine's plain context updates. */
const sessionUpdates = {
  /** The ticks of the latest `tasks.due` have reached the task actors. */
  ticked: (): ContextPatch<SessionContext> => ({ ticking: false }),
};

/** The Session machine's effects: they send events to task actors, task groups, itself or the attempt runner. */
const sessionEffects = {
  removeTasks: ({ context, event, self }: SessionArgs, outbox: Outbox): ContextPatch<SessionContext> | undefined => {
    if (event.type !== 'tasks.remove') return undefined;
    const index = new TaskIndex(self.getSnapshot().children);
    const stops = new GroupStops();
    for (const id of event.ids) {
      const found = index.find(id);
      if (found !== undefined) stops.stop(found.group, id);
    }
    for (const { group, event: stop } of stops.events()) outbox.send(group, stop);
    const removed = new Set(event.ids);
    return { due: context.due.filter((id) => !removed.has(id)) };
  },
  markDue: ({ context, event, self }: SessionArgs, outbox: Outbox): ContextPatch<SessionContext> | undefined => {
    if (event.type !== 'tasks.due') return undefined;
    const index = new TaskIndex(self.getSnapshot().children);
    const tick = { type: 'clock.tick', now: event.now } as const;
    for (const id of event.ids) {
      const found = index.find(id);
      if (found !== undefined) outbox.send(found.task, tick);
    }
    // Sent after the ticks, so it arrives once the task actors have taken them.
    outbox.send(self, TICKED);
    // The timer names each task once per wake: only ids still waiting from an earlier one can repeat.
    if (context.due.length === 0) return { due: event.ids, now: event.now, ticking: true };
    const due = new Set(context.due);
    for (const id of event.ids) due.add(id);
    return { due: [...due], now: event.now, ticking: true };
  },
  /**
   * Takes every due task into one attempt and tells each it is delivering. A task qualifies when
   * its actor is `overdue` — the task machine alone decides whether a task is due; no attempt
   * starts while ticks are on their way to the tasks (`ticking`).
   */
  startAttempt: ({ context, self }: SessionArgs, outbox: Outbox): ContextPatch<SessionContext> => {
    const index = new TaskIndex(self.getSnapshot().children);
    const rows: TaskRow[] = [];
    for (const id of context.due) {
      const found = index.find(id);
      const snapshot = found?.task.getSnapshot();
      // The task machine is flat: its value is the state's name (`matches` would parse it for every task).
      if (found === undefined || snapshot === undefined || snapshot.value !== 'overdue') continue;
      rows.push(snapshot.context.row);
      outbox.send(found.task, START);
    }
    return { due: [], inFlight: rows };
  },
  /** Asks the attempt runner to deliver the rows in flight (without a runner the attempt fails at once). */
  requestAttempt: ({ context, self }: SessionArgs, outbox: Outbox): undefined => {
    if (context.attempts === undefined) {
      outbox.send(self, { type: 'attempt.failed', error: new Error('The Session has no attempt runner.') });
      return undefined;
    }
    const request: AttemptRunEvent = { type: 'attempt.run', sessionId: context.sessionId, rows: context.inFlight, replyTo: self };
    outbox.send(context.attempts, request);
    return undefined;
  },
  /** Each task of the attempt takes its commit or its failure; an ended task's group stops it on its own. */
  settleAttempt: ({ event, self }: SessionArgs, outbox: Outbox): ContextPatch<SessionContext> | undefined => {
    if (event.type !== 'delivery.settle') return undefined;
    const index = new TaskIndex(self.getSnapshot().children);
    for (const row of event.committed) {
      const found = index.find(row.record.id);
      if (found !== undefined) outbox.send(found.task, { type: 'delivery.committed', row, now: event.now });
    }
    sendFailures(index, outbox, event.failures, event.now);
    return { inFlight: [] };
  },
  /** Routes a retried receipt's commit, its failure, or a retry now to the tasks it names. */
  forwardToTasks: ({ event, self }: SessionArgs, outbox: Outbox): undefined => {
    const index = new TaskIndex(self.getSnapshot().children);
    if (event.type === 'delivery.committed') {
      const found = index.find(event.row.record.id);
      if (found !== undefined) outbox.send(found.task, event);
    } else if (event.type === 'receipts.failed') sendFailures(index, outbox, event.failures, event.now);
    else if (event.type === 'tasks.retry') {
      const retry = { type: 'delivery.retry', now: event.now } as const;
      for (const id of event.ids) {
        const found = index.find(id);
        if (found !== undefined) outbox.send(found.task, retry);
      }
    }
    return undefined;
  },
};

/** The events whose actions spawn task groups or talk to the parent: XState's own algorithm takes them. */
const DELEGATED = ['tasks.spawn', 'task.updated', 'attempt.failed'] as const;

export const sessionMachine = setup({
  types: {
    context: {} as SessionContext,
    input: {} as SessionInput,
    events: {} as SessionEvent,
  },
  actors: {
    taskGroup: taskGroupMachine,
  },
  guards: machineGuards<SessionContext, SessionEvent, typeof sessionGuards>(sessionGuards),
  actions: {
    ...machineUpdates<SessionContext, SessionEvent, typeof sessionUpdates>(sessionUpdates),
    ...machineEffects<SessionContext, SessionEvent, typeof sessionEffects>(sessionEffects),
    /**
     * A committed row reaches its task actor; a row without one (a new task, or the Session's
     * restored tasks in one event) is spawned in the first groups with room, then in new groups.
     */
    putTasks: enqueueActions(({ enqueue, event, self, context }) => {
      const rows = event.type === 'tasks.spawn' ? event.rows : event.type === 'task.updated' ? [event.row] : [];
      const index = new TaskIndex(self.getSnapshot().children);
      const fresh: TaskRow[] = [];
      for (const row of rows) {
        const found = index.find(row.record.id);
        if (found === undefined) fresh.push(row);
        else if (event.type === 'task.updated') enqueue.sendTo(found.task, event);
      }
      for (const { group, spawn, rows: placed } of index.place(fresh)) {
        if (spawn) enqueue.spawnChild('taskGroup', { id: group, input: { rows: placed, runtime: context.runtime } });
        else enqueue.sendTo(group, { type: 'tasks.spawn', rows: placed });
      }
    }),
    /** The attempt ended with an unexpected error: its tasks fail at the resolve stage. */
    failAttempt: enqueueActions(({ enqueue, context, self }) => {
      const index = new TaskIndex(self.getSnapshot().children);
      const ids = context.inFlight.map((row) => row.record.id);
      const failure = { stage: 'resolve', message: UNEXPECTED_END, retry: context.runtime?.retry ?? DEFAULT_RETRY } as const;
      sendFailures(index, { send: (task, failed) => enqueue.sendTo(task, failed) }, [{ ids, failure }], context.now);
      // After the tasks took the failure, so the timer re-queues them at their retry.
      const failed: TasksFailedEvent = { type: 'tasks.failed', causes: [{ ids, stage: 'resolve', message: UNEXPECTED_END }] };
      enqueue.sendParent(failed);
      enqueue.assign({ inFlight: [] });
    }),
  },
}).createMachine({
  id: 'session',
  context: ({ input }) => ({
    sessionId: input.sessionId,
    runtime: input.runtime,
    attempts: input.attempts,
    due: [],
    inFlight: [],
    now: 0,
    ticking: false,
  }),
  initial: 'idle',
  on: {
    'tasks.spawn': { actions: 'putTasks' },
    'task.updated': { actions: 'putTasks' },
    'delivery.committed': { actions: 'forwardToTasks' },
    'receipts.failed': { actions: 'forwardToTasks' },
    'tasks.retry': { actions: 'forwardToTasks' },
    'tasks.remove': { actions: 'removeTasks' },
    'tasks.due': { actions: 'markDue' },
    'tasks.ticked': { actions: 'ticked' },
  },
  states: {
    idle: {
      description: 'No attempt in flight; tasks reported due start one.',
      always: { guard: 'hasDue', target: 'starting' },
    },
    /** Takes the due, overdue tasks into an attempt; with none left (edited or deleted meanwhile) there is nothing to do. */
    starting: {
      description: 'Takes every due task into one attempt (none left: back to idle).',
      entry: 'startAttempt',
      always: [{ guard: 'nothingInFlight', target: 'idle' }, { target: 'delivering' }],
    },
    delivering: {
      description: "Resolve the Agent, append the messages, flush the Session: the supervisor's attempt runner does it.",
      entry: 'requestAttempt',
      on: {
        // The runner hands the outcome to the supervisor's mailbox itself.
        'attempt.done': { target: 'committing' },
        'attempt.failed': { target: 'idle', actions: 'failAttempt' },
      },
    },
    committing: {
      description: "The flushed outcome waits in the supervisor's mailbox to be recorded.",
      on: { 'delivery.settle': { target: 'idle', actions: 'settleAttempt' } },
    },
  },
});

export type SessionMachine = typeof sessionMachine;

/**
 * The logic spawned for every Session: the Session machine run by `flatMachineLogic` — the same
 * states, transitions, guards and actions, and the same snapshots; the events that spawn task
 * groups or tell the parent of a failed attempt take XState's own algorithm.
 */
export const sessionLogic: SessionMachine = flatMachineLogic(sessionMachine, {
  guards: sessionGuards,
  updates: sessionUpdates,
  effects: sessionEffects,
  delegated: DELEGATED,
});

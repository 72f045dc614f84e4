// The root of the actor system: `opening` (decode the stored domain and spawn the actors) →
// `running` (one mailbox: every call and every delivery commit takes its place in arrival order
// and runs in its slot, its persistence awaited inside it; a run of delivery commits, or of
// creates for different Sessions, shares one slot and one write) → `closing` (once accepted work is
// drained) → `closed` (final). Session actors — one per Session with active tasks — live in Session
// groups (`sessionGroupMachine.ts`); the supervisor sends the timer's due tasks and each slot's
// committed effects straight to live Session actors, and through their groups only what spawns
// or retires one (`sessionRoutes.ts`). A Host speaks to it with `schedule.call` and
// `schedule.close` and hears `schedule.reply` and `schedule.changed`. The effects come in through
// the input (the Host's ports) and run in small effect actors: `openDomain` (opens the storage and
// creates the runtime handle), the long-lived `slotRunner` (receives `slot.run`, answers
// `slot.done`, so a slot spawns nothing), the `timer` over the injected clock (sends `clock.tick`,
// and `tasks.activate` first for passivated tasks it brings back, spawned like restored ones) and
// `closeDomain`. Over a storage many Hosts share (one with `cluster`), the supervisor is one
// member of the cluster instead: `member` runs the `clusterMember` effect actor, which joins the
// cluster, runs each call where its Session's shard is held and reports every change committed at
// any Host, with the same protocol. The stubs below throw; `scheduleSupervisor` provides the real
// ones. This file holds no I/O.
import { type AnyActorRef, assign, enqueueActions, fromCallback, fromPromise, sendTo, setup } from 'xstate';
import { ScheduleError } from '../src/domain/errors.ts';
import type { TaskRow } from '../src/domain/tasks/types.ts';
import type {
  ActorEffect,
  CommandOutcome,
  DeliveryFlushedEvent,
  DueTasks,
  MailboxCommand,
  Operation,
  ScheduleCall,
  ScheduleCallEvent,
  ScheduleReplyEvent,
  SupervisorEmitted,
  SupervisorRuntime,
  TasksFailedEvent,
} from './events.ts';
import { emptyMailbox, type Mailbox, mailboxDrop, mailboxHead, mailboxItems, mailboxPush } from './mailbox.ts';
import { callOp, rejected, type ScheduleReplyBody } from './scheduleReply.ts';
import { type SessionGroupContext, sessionGroupMachine } from './sessionGroupMachine.ts';
import type { AttemptRunEvent, AttemptRunnerRef, SessionEvent } from './sessionMachine.ts';
import { SessionRoutes } from './sessionRoutes.ts';

export type SupervisorEvent =
  /** A call takes its place in the mailbox; its reply goes to `replyTo`, else to the parent. */
  | ScheduleCallEvent
  /** The timer activated these passivated tasks: their actors are spawned from the rows, as restored ones are. */
  | { readonly type: 'tasks.activate'; readonly rows: readonly TaskRow[] }
  /** The timer woke at `now` and found these tasks due. */
  | { readonly type: 'clock.tick'; readonly now: number; readonly due: readonly DueTasks[] }
  /** Drain accepted work, close the storage, then stop (status `done`). */
  | { readonly type: 'schedule.close' }
  /** The timer has stopped and no attempt, timer callback or counted call is left in progress. */
  | { readonly type: 'timer.drained' }
  /** The slot runner finished the slot at the head of the mailbox (`count` commands). */
  | { readonly type: 'slot.done'; readonly outcome: CommandOutcome; readonly count: number }
  | DeliveryFlushedEvent
  | TasksFailedEvent
  /** Task actors took these failures (the timer re-queued them): their failure status is written with their rows. */
  | FailuresTakenEvent
  | MemberEvent;

/** What the cluster member actor reports (the `member` state only). */
export type MemberEvent =
  /** The cluster is joined: calls run from now on. */
  | { readonly type: 'member.joined' }
  /** A call the member ran is settled: its reply body. */
  | { readonly type: 'member.settled'; readonly call: ScheduleCallEvent; readonly body: ScheduleReplyBody }
  /** A change was committed at some Host of the cluster. */
  | { readonly type: 'member.changed'; readonly sessionId: string; readonly ids: readonly string[] }
  /** The member left the cluster after its calls in progress finished. */
  | { readonly type: 'member.left' }
  /** The cluster could not be joined or left: the supervisor errors with `error`. */
  | { readonly type: 'member.failed'; readonly error: unknown };

/** What the supervisor tells its cluster member: a call to run, or to leave once the calls in progress are done. */
export type MemberCommand = ScheduleCallEvent | { readonly type: 'member.leave' };

/** From the timer, after it re-queued failed tasks: the tasks whose failure status is to be stored. */
export interface FailuresTakenEvent {
  readonly type: 'failures.taken';
  readonly ids: readonly string[];
}

/**
 * The supervisor's input: the Host's ports, read only by the `openDomain` actor. A member
 * `keepTreeOnClose: true` (set by `createScheduleService`) makes a close end in the non-final
 * `closed` state instead of `done`: reaching a final state stops every descendant one at a time,
 * and XState copies an actor's children map for each child it stops (quadratic in the number of
 * children), while a wrapper that drops its reference lets the garbage collector reclaim the
 * whole tree at once.
 */
export type SupervisorInput = object;

const keepsTreeOnClose = (input: SupervisorInput): boolean => 'keepTreeOnClose' in input && input.keepTreeOnClose === true;

/** Whether the input's storage is one many Hosts share (it has a `cluster` membership): the supervisor is then a member. */
const joinsCluster = (input: SupervisorInput): boolean => {
  const storage = 'storage' in input ? input.storage : undefined;
  return typeof storage === 'object' && storage !== null && 'cluster' in storage && storage.cluster !== undefined;
};

export interface SupervisorContext {
  /** Commands waiting for their slot, oldest first. */
  readonly queue: Mailbox<MailboxCommand>;
  /** `schedule.close` was received: the timer drains once the supervisor runs. */
  readonly closeAsked: boolean;
  /** The work accepted before the close is drained: close once the mailbox is empty. */
  readonly closeRequested: boolean;
  readonly input: SupervisorInput;
  /** The effects of this supervisor, from `openDomain` (null until the domain is open). */
  readonly runtime: SupervisorRuntime | null;
  /** The runner of every Session's delivery attempts, spawned once the domain is open. */
  readonly attempts: AttemptRunnerRef | undefined;
}

/** What `openDomain` yields: the active rows to spawn actors for, and the effects' handle. */
export interface OpenedDomain {
  readonly activeRows: readonly TaskRow[];
  readonly runtime: SupervisorRuntime;
}

/** What the supervisor tells its timer. */
export type TimerEvent =
  /** Task actors took these failures: re-queue each task at its next retry (or park it). */
  | TasksFailedEvent
  /** Stop the timer, hand out the receipts waiting for a write, and answer `timer.drained` once idle. */
  | { readonly type: 'timer.drain' };

/** The input of the timer and the other effect actors that run with an open domain. */
export interface RuntimeInput {
  readonly runtime: SupervisorRuntime | null;
  /** For the timer: drain at once (the close arrived while the domain was opening). */
  readonly drain?: boolean;
}

/** The mailbox operation a Host's call stands for. */
export function callOperation(call: ScheduleCall): Operation {
  switch (call.kind) {
    case 'tool': {
      const op = { kind: 'tool', sessionId: call.sessionId, name: call.name, args: call.args } as const;
      return {
        ...op,
        ...(call.signal === undefined ? {} : { signal: call.signal }),
        ...(call.callId === undefined ? {} : { callId: call.callId }),
      };
    }
    case 'remote':
      return call.callId === undefined
        ? { kind: 'remote', method: call.method, request: call.request }
        : { kind: 'remote', method: call.method, request: call.request, callId: call.callId };
    case 'archive':
      return call.method === 'sessionActivity'
        ? { kind: 'archive.activity', sessionId: call.sessionId }
        : { kind: 'archive.stop', sessionId: call.sessionId };
  }
}

/** The operation a mailbox command answers for (its reply's `op`); an internal command has none. */
function operationOp(operation: Operation): string {
  switch (operation.kind) {
    case 'tool':
      return operation.name;
    case 'remote':
      return `remote.${operation.method}`;
    case 'archive.activity':
      return 'archive.sessionActivity';
    case 'archive.stop':
      return 'archive.sessionStop';
    default:
      return operation.kind;
  }
}

/**
 * The reply to request `requestId` of operation `op`. The slot planned this body for this call,
 * so its value is the operation's answer; the compiler cannot follow that through the mailbox, so
 * this is the one place the event is typed by its operation.
 */
const replyEvent = (requestId: string, op: string, body: ScheduleReplyBody): ScheduleReplyEvent =>
  ({ type: 'schedule.reply', requestId, op, ...body }) as ScheduleReplyEvent;

/** What the supervisor sends its slot runner: the commands of the slot at the head of the mailbox. */
export interface SlotRunEvent {
  readonly type: 'slot.run';
  readonly commands: readonly MailboxCommand[];
}

const isDeliveryCommit = (command: MailboxCommand): boolean => command.operation.kind === 'delivery.commit';

/** The Session of a `schedule_create` tool call; undefined for any other command. */
const createSession = (command: MailboxCommand): string | undefined =>
  command.operation.kind === 'tool' && command.operation.name === 'schedule_create' ? command.operation.sessionId : undefined;

/** The most creates one slot takes: their rows are written as one batch. */
export const CREATE_RUN_LIMIT = 64;

/**
 * The commands one slot takes from the head of the mailbox: the head alone; or — when the head is
 * a delivery commit — the whole run of delivery commits behind it; or — when the head is a create —
 * the run of creates behind it for pairwise different Sessions, at most `CREATE_RUN_LIMIT` (a
 * second create for a Session already in the run ends it, so a Session's calls still see each
 * other). A run is written as one batch. Other calls never share a slot, so every call still sees
 * exactly the changes queued before it.
 */
export function slotCommands(queue: Mailbox<MailboxCommand>): readonly MailboxCommand[] {
  const head = mailboxHead(queue, 1);
  const first = head[0];
  if (first === undefined) return head;
  if (isDeliveryCommit(first)) {
    const commands: MailboxCommand[] = [];
    for (const command of mailboxItems(queue)) {
      if (!isDeliveryCommit(command)) break;
      commands.push(command);
    }
    return commands;
  }
  if (createSession(first) === undefined) return head;
  const commands: MailboxCommand[] = [];
  const sessions = new Set<string>();
  for (const command of mailboxItems(queue)) {
    const sessionId = createSession(command);
    if (sessionId === undefined || sessions.has(sessionId) || commands.length === CREATE_RUN_LIMIT) break;
    sessions.add(sessionId);
    commands.push(command);
  }
  return commands;
}

const groupBySession = (rows: readonly TaskRow[]): Map<string, TaskRow[]> => {
  const groups = new Map<string, TaskRow[]>();
  for (const row of rows) {
    const group = groups.get(row.sessionId);
    if (group === undefined) groups.set(row.sessionId, [row]);
    else group.push(row);
  }
  return groups;
};

/** What a Session group is spawned with: the effects' handle and the attempt runner, handed on to its Sessions. */
const sessionGroupInput = (context: SupervisorContext): SessionGroupContext => ({
  runtime: context.runtime ?? undefined,
  attempts: context.attempts,
});

/** What a finished slot does, in order: its effects reach the actors, failures the timer, the reply its caller; then it leaves the mailbox. */
const SLOT_DONE = ['applyEffects', 'reportFailures', 'reportSlot', 'dequeue'] as const;

export const supervisorMachine = setup({
  types: {
    context: {} as SupervisorContext,
    input: {} as SupervisorInput,
    events: {} as SupervisorEvent,
    emitted: {} as SupervisorEmitted,
  },
  actors: {
    sessionGroup: sessionGroupMachine,
    /** Opens and decodes the stored domain with the input's ports; provided by `scheduleSupervisor`. */
    openDomain: fromPromise<OpenedDomain, SupervisorInput>(async () => {
      throw new Error('openDomain is provided by scheduleSupervisor');
    }),
    /** Runs mailbox slots one at a time: receives `slot.run`, answers `slot.done`. */
    slotRunner: fromCallback<SlotRunEvent, RuntimeInput>(() => {
      throw new Error('slotRunner is provided by scheduleSupervisor');
    }),
    /** Runs the Sessions' delivery attempts: receives `attempt.run`, answers the Session with `attempt.done`. */
    attemptRunner: fromCallback<AttemptRunEvent, RuntimeInput>(() => {
      throw new Error('attemptRunner is provided by scheduleSupervisor');
    }),
    /** The one timer over the injected clock: sends `clock.tick` with the tasks due. */
    timer: fromCallback<TimerEvent, RuntimeInput>(() => {
      throw new Error('timer is provided by scheduleSupervisor');
    }),
    /** Closes the storage. */
    closeDomain: fromPromise<void, RuntimeInput>(async () => {
      throw new Error('closeDomain is provided by scheduleSupervisor');
    }),
    /** One member of a cluster: joins it, runs the calls it receives, leaves on `member.leave`. */
    clusterMember: fromCallback<MemberCommand, SupervisorInput>(() => {
      throw new Error('clusterMember is provided by scheduleSupervisor');
    }),
  },
  guards: {
    hasQueued: ({ context }) => context.queue.size > 0,
    /** Commands wait behind the slot that is done (its own continuation among them). */
    queuedBehind: ({ context, event }) =>
      event.type === 'slot.done' && (context.queue.size > event.count || event.outcome.continuation !== undefined),
    closeRequested: ({ context }) => context.closeRequested,
    notClosing: ({ context }) => !context.closeAsked,
    keepTreeOnClose: ({ context }) => keepsTreeOnClose(context.input),
    joinsCluster: ({ context }) => joinsCluster(context.input),
    closeAsked: ({ context }) => context.closeAsked,
  },
  actions: {
    enqueueCommand: assign(({ context, event }) => {
      if (event.type === 'schedule.call') {
        const operation = callOperation(event.call);
        const command: MailboxCommand =
          event.replyTo === undefined
            ? { requestId: event.requestId, operation }
            : { requestId: event.requestId, operation, replyTo: event.replyTo };
        return { queue: mailboxPush(context.queue, command) };
      }
      if (event.type === 'delivery.flushed') {
        let queue = context.queue;
        for (const { sessionId, outcome } of event.flushed) {
          queue = mailboxPush(queue, { requestId: null, operation: { kind: 'delivery.commit', sessionId, outcome } });
        }
        return { queue };
      }
      if (event.type === 'failures.taken') {
        return { queue: mailboxPush(context.queue, { requestId: null, operation: { kind: 'failure.record', ids: event.ids } }) };
      }
      return {};
    }),
    /** The finished slot leaves the mailbox; an unfinished call's next step joins it at the back, under the same request. */
    dequeue: assign(({ context, event }) => {
      const count = event.type === 'slot.done' ? event.count : 1;
      const continuation = event.type === 'slot.done' ? event.outcome.continuation : undefined;
      const head = continuation === undefined ? undefined : mailboxHead(context.queue, 1)[0];
      const queue = mailboxDrop(context.queue, count);
      return { queue: head === undefined || continuation === undefined ? queue : mailboxPush(queue, { ...head, operation: continuation }) };
    }),
    askClose: assign({ closeAsked: true }),
    requestClose: assign({ closeRequested: true }),
    drainTimer: sendTo('timer', { type: 'timer.drain' }),
    forwardToTimer: enqueueActions(({ enqueue, event }) => {
      if (event.type === 'tasks.failed') enqueue.sendTo('timer', event);
    }),
    /** After the slot's effects reached the task actors: the failures they took go to the timer. */
    reportFailures: enqueueActions(({ enqueue, event }) => {
      if (event.type !== 'slot.done' || event.outcome.failures.length === 0) return;
      const failed: TasksFailedEvent = { type: 'tasks.failed', causes: event.outcome.failures };
      enqueue.sendTo('timer', failed);
    }),
    /**
     * Spawns Session actors and their task actors — the restored rows at open, or activated
     * passivated ones; the rows of one Session arrive in one event.
     */
    spawnRows: enqueueActions(({ enqueue, event, self, context }) => {
      const rows = context.runtime === null ? [] : event.type === 'tasks.activate' ? event.rows : openedRows(event);
      const input = sessionGroupInput(context);
      const routes = new SessionRoutes();
      for (const [sessionId, group] of groupBySession(rows)) {
        routes.add({ type: 'send', sessionId, event: { type: 'tasks.spawn', rows: group }, spawn: true });
      }
      const sends = routes.sends(self.getSnapshot().children);
      for (const { session, event: sent } of sends.direct) enqueue.sendTo(session, sent);
      for (const group of sends.groups) {
        if (group.spawn) enqueue.spawnChild('sessionGroup', { id: group.id, input });
        enqueue.sendTo(group.id, group.event);
      }
    }),
    /** Routes a committed slot's effects to the Session actors. */
    applyEffects: enqueueActions(({ enqueue, event, self, context }) => {
      if (event.type !== 'slot.done') return;
      const input = sessionGroupInput(context);
      const routes = new SessionRoutes();
      for (const effect of event.outcome.effects) {
        if (effect.type === 'tasks.spawn') {
          for (const [sessionId, group] of groupBySession(effect.rows)) {
            routes.add({ type: 'send', sessionId, event: { type: 'tasks.spawn', rows: group }, spawn: true });
          }
        } else if (effect.type === 'task.updated' || effect.type === 'delivery.committed') {
          routes.add({ type: 'send', sessionId: effect.row.sessionId, event: effect, spawn: effect.type === 'task.updated' });
        } else if (effect.type === 'tasks.remove' && effect.retire) {
          routes.add({ type: 'retire', sessionId: effect.sessionId });
        } else {
          routes.add({ type: 'send', sessionId: effect.sessionId, event: sessionEventOf(effect), spawn: false });
          if (effect.type === 'delivery.settle' && effect.retire) routes.add({ type: 'retire', sessionId: effect.sessionId });
        }
      }
      const sends = routes.sends(self.getSnapshot().children);
      for (const { session, event: sent } of sends.direct) enqueue.sendTo(session, sent);
      for (const group of sends.groups) {
        if (group.spawn) enqueue.spawnChild('sessionGroup', { id: group.id, input });
        enqueue.sendTo(group.id, group.event);
      }
    }),
    /**
     * Sends the slot's reply to the caller — its `replyTo`, else the parent; a root supervisor
     * emits it — and tells the parent (and `schedule/changed` listeners) of each committed change.
     */
    reportSlot: enqueueActions(({ enqueue, event, context, self }) => {
      if (event.type !== 'slot.done') return;
      const outcome = event.outcome;
      const commands = mailboxHead(context.queue, event.count);
      const parent: AnyActorRef | undefined = self._parent;
      const answer = (command: MailboxCommand, body: ScheduleReplyBody): void => {
        if (command.requestId === null) return;
        const reply = replyEvent(command.requestId, operationOp(command.operation), body);
        const target = command.replyTo ?? parent;
        if (target === undefined) enqueue.emit(reply);
        else enqueue.sendTo(target, reply);
      };
      if (outcome.replies !== undefined) {
        commands.forEach((command, i) => {
          const body = outcome.replies?.[i];
          if (body !== undefined) answer(command, body);
        });
      } else if (commands.length === 1 && outcome.continuation === undefined) {
        // A call with a continuation is answered when its last step is done.
        answer(commands[0]!, outcome.reply);
      }
      for (const change of outcome.changes) {
        const ids = [...change.ids];
        if (parent !== undefined) enqueue.sendTo(parent, { type: 'schedule.changed', sessionId: change.sessionId, ids });
        enqueue.emit({ type: 'schedule/changed', sessionId: change.sessionId, ids });
      }
    }),
    /** A member's settled call is answered as a slot's reply is: to its `replyTo`, else the parent, else emitted. */
    replyMember: enqueueActions(({ enqueue, event, self }) => {
      if (event.type !== 'member.settled') return;
      const reply = replyEvent(event.call.requestId, callOp(event.call.call), event.body);
      const target: AnyActorRef | undefined = event.call.replyTo ?? self._parent;
      if (target === undefined) enqueue.emit(reply);
      else enqueue.sendTo(target, reply);
    }),
    /** A change committed at any Host of the cluster, told as a committed slot's changes are. */
    reportMemberChange: enqueueActions(({ enqueue, event, self }) => {
      if (event.type !== 'member.changed') return;
      const ids = [...event.ids];
      if (self._parent !== undefined) enqueue.sendTo(self._parent, { type: 'schedule.changed', sessionId: event.sessionId, ids });
      enqueue.emit({ type: 'schedule/changed', sessionId: event.sessionId, ids });
    }),
    forwardToMember: sendTo('member', ({ event }) => event as ScheduleCallEvent),
    leaveCluster: sendTo('member', { type: 'member.leave' }),
    /** A call that arrives once the supervisor is closing is refused: nothing is left to run it. */
    refuseClosed: enqueueActions(({ enqueue, event, self }) => {
      if (event.type !== 'schedule.call') return;
      const closed = new ScheduleError('internal_error', 'The schedule service is closed.');
      const reply = replyEvent(event.requestId, callOp(event.call), rejected(closed));
      const target: AnyActorRef | undefined = event.replyTo ?? self._parent;
      if (target === undefined) enqueue.emit(reply);
      else enqueue.sendTo(target, reply);
    }),
    routeDue: enqueueActions(({ enqueue, event, self }) => {
      if (event.type !== 'clock.tick') return;
      const routes = new SessionRoutes();
      for (const due of event.due) {
        routes.add({ type: 'send', sessionId: due.sessionId, event: { type: 'tasks.due', now: event.now, ids: due.ids }, spawn: false });
      }
      // None of these routes spawns: only live Session actors are told, each directly.
      for (const { session, event: sent } of routes.sends(self.getSnapshot().children).direct) enqueue.sendTo(session, sent);
    }),
    keepRuntime: assign(({ event }) => ({ runtime: 'output' in event ? (event.output as OpenedDomain).runtime : null })),
    /** Spawns the attempt runner before the Session actors that send it their attempts. */
    spawnAttempts: assign(({ spawn, context }) => ({
      attempts: spawn('attemptRunner', { id: 'attempts', input: { runtime: context.runtime } }),
    })),
    /** Ends the supervisor with the error (status `error`; a parent's `invoke.onError` receives it). */
    fail: ({ event }) => {
      throw 'error' in event ? event.error : new Error('The schedule supervisor failed.');
    },
  },
}).createMachine({
  id: 'supervisor',
  context: ({ input }) => ({
    queue: emptyMailbox(),
    closeAsked: false,
    closeRequested: false,
    input,
    runtime: null,
    attempts: undefined,
  }),
  initial: 'starting',
  on: {
    'schedule.call': { actions: 'enqueueCommand' },
  },
  states: {
    starting: {
      description: 'Reads the input: a storage many Hosts share makes this supervisor a cluster member.',
      always: [{ guard: 'joinsCluster', target: 'member' }, { target: 'opening' }],
    },
    member: {
      description: 'One Host of a cluster: each call runs where its Session’s shard is held; every change at any Host is told.',
      invoke: { id: 'member', src: 'clusterMember', input: ({ context }) => context.input },
      initial: 'joining',
      on: {
        'schedule.call': { actions: 'forwardToMember' },
        'member.settled': { actions: 'replyMember' },
        'member.changed': { actions: 'reportMemberChange' },
        'member.failed': { target: 'failed' },
      },
      states: {
        joining: {
          description: 'Takes this Host’s share of the shards; calls wait in the member.',
          on: { 'member.joined': 'serving', 'schedule.close': { actions: 'askClose' } },
        },
        serving: {
          description: 'Each call runs as it arrives and is answered when it settles (replies may come out of request order).',
          always: { guard: 'closeAsked', target: 'leaving' },
          on: { 'schedule.close': { target: 'leaving', actions: 'askClose' } },
        },
        leaving: {
          description: 'Closing: the calls in progress finish, then every shard is handed back; new calls are refused.',
          entry: 'leaveCluster',
          on: {
            'schedule.call': { actions: 'refuseClosed' },
            'member.left': [{ guard: 'keepTreeOnClose', target: '#supervisor.closed' }, { target: '#supervisor.done' }],
          },
        },
      },
    },
    opening: {
      description: 'Decodes the stored domain and spawns the actors of the active tasks; calls wait in the mailbox.',
      invoke: {
        src: 'openDomain',
        input: ({ context }) => context.input,
        onDone: { target: 'running', actions: ['keepRuntime', 'spawnAttempts', 'spawnRows'] },
        onError: { target: 'failed' },
      },
      on: { 'schedule.close': { actions: 'askClose' } },
    },
    running: {
      description: 'One mailbox: calls and delivery commits run one slot at a time, in arrival order.',
      initial: 'idle',
      invoke: [
        { id: 'slots', src: 'slotRunner', input: ({ context }) => ({ runtime: context.runtime }) },
        { id: 'timer', src: 'timer', input: ({ context }) => ({ runtime: context.runtime, drain: context.closeAsked }) },
      ],
      on: {
        'delivery.flushed': { actions: 'enqueueCommand' },
        'failures.taken': { actions: 'enqueueCommand' },
        'tasks.failed': { actions: 'forwardToTimer' },
        'tasks.activate': { actions: 'spawnRows' },
        'clock.tick': { actions: 'routeDue' },
        'schedule.close': { guard: 'notClosing', actions: ['askClose', 'drainTimer'] },
        'timer.drained': { actions: 'requestClose' },
      },
      states: {
        idle: {
          description: 'The mailbox is empty.',
          always: [
            { guard: 'hasQueued', target: 'busy' },
            { guard: 'closeRequested', target: '#supervisor.closing' },
          ],
          // A command arriving at an empty mailbox starts its slot in the same step.
          on: {
            'schedule.call': { target: 'busy', actions: 'enqueueCommand' },
            'delivery.flushed': { target: 'busy', actions: 'enqueueCommand' },
            'failures.taken': { target: 'busy', actions: 'enqueueCommand' },
          },
        },
        busy: {
          description: 'The slot at the head of the mailbox runs; its write is awaited here.',
          entry: sendTo('slots', ({ context }): SlotRunEvent => ({ type: 'slot.run', commands: slotCommands(context.queue) })),
          on: {
            // With more commands waiting, the next slot starts in the same step.
            'slot.done': [
              { guard: 'queuedBehind', target: 'busy', reenter: true, actions: SLOT_DONE },
              { target: 'idle', actions: SLOT_DONE },
            ],
          },
        },
      },
    },
    closing: {
      description: 'Accepted work is drained; the storage closes (a failed close ends the supervisor with its error).',
      on: { 'schedule.call': { actions: 'refuseClosed' } },
      invoke: {
        src: 'closeDomain',
        input: ({ context }) => ({ runtime: context.runtime }),
        onDone: [{ guard: 'keepTreeOnClose', target: 'closed' }, { target: 'done' }],
        onError: { target: 'failed' },
      },
    },
    /** Closed: status `done`, every descendant stopped. */
    done: { type: 'final', description: 'The storage is closed; the supervisor is done (status done).' },
    /**
     * Closed for a wrapper that drops the actor tree (`keepTreeOnClose`): idle, no timers, no
     * teardown; the garbage collector reclaims the tree once the wrapper lets go of it.
     */
    closed: {
      description: 'The storage is closed; the wrapper drops the actor tree.',
      on: { 'schedule.call': { actions: 'refuseClosed' } },
    },
    /** Ends the supervisor with the error of `openDomain` or `closeDomain` (status `error`). */
    failed: { entry: 'fail', description: 'The stored domain could not be opened (or closed): the supervisor errors.' },
  },
});

/** The Session event an effect stands for: the effect without the Session id (and `retire`) it is routed by. */
function sessionEventOf(
  effect: Extract<ActorEffect, { readonly sessionId: string }>,
): Extract<SessionEvent, { readonly type: 'tasks.remove' | 'delivery.settle' | 'receipts.failed' | 'tasks.retry' }> {
  switch (effect.type) {
    case 'tasks.remove':
      return { type: 'tasks.remove', ids: effect.ids };
    case 'delivery.settle':
      return { type: 'delivery.settle', committed: effect.committed, failures: effect.failures, now: effect.now };
    case 'receipts.failed':
      return { type: 'receipts.failed', failures: effect.failures, now: effect.now };
    case 'tasks.retry':
      return { type: 'tasks.retry', ids: effect.ids, now: effect.now };
  }
}

/** The rows of the `openDomain` done event. */
function openedRows(event: { readonly type: string }): readonly TaskRow[] {
  return 'output' in event ? (event.output as OpenedDomain).activeRows : [];
}

export type SupervisorMachine = typeof supervisorMachine;

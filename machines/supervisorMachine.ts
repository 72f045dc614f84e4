// The root of the actor system: `opening` (decode the stored domain and spawn the actors) →
// `running` (one mailbox: every call and every delivery commit takes its place in arrival order
// and runs alone, its persistence awaited inside its slot) → `closing` (once the mailbox is
// drained) → `closed`. It spawns one Session actor per Session with active tasks and routes the
// timer's due tasks and each slot's committed effects to them. The slot's work — validation,
// the write through the storage port — is done by the `slotRunner` actor the service provides (one
// long-lived child: it receives `slot.run` and answers `slot.done`, so a slot spawns nothing), as
// are `openDomain` and `closeDomain`; this file holds no I/O.
import { type ActorRefFrom, assign, emit, enqueueActions, fromCallback, fromPromise, sendTo, setup } from 'xstate';
import type { TaskRow } from '../src/domain/types.ts';
import type { ActorEffect, CommandOutcome, DueTasks, MailboxCommand, SupervisorEmitted } from './events.ts';
import { sessionActorId } from './events.ts';
import { type DeliveryFailedEvent, type DeliveryFlushedEvent, sessionMachine } from './sessionMachine.ts';

export type SupervisorEvent =
  /** A call took its place in the mailbox. */
  | { readonly type: 'command'; readonly command: MailboxCommand }
  /** The timer woke and found these tasks due. */
  | { readonly type: 'clock.wake'; readonly now: number; readonly due: readonly DueTasks[] }
  /** Drain the mailbox, then close the domain. */
  | { readonly type: 'close' }
  /** The slot runner finished the slot at the head of the mailbox (`count` commands). */
  | { readonly type: 'slot.done'; readonly outcome: CommandOutcome; readonly count: number }
  | DeliveryFlushedEvent
  | DeliveryFailedEvent;

export interface SupervisorContext {
  /** Commands waiting for their slot, oldest first. */
  readonly queue: readonly MailboxCommand[];
  readonly closeRequested: boolean;
}

/** What `openDomain` yields: the active rows to spawn actors for. */
export interface OpenedDomain {
  readonly activeRows: readonly TaskRow[];
}

type SessionRef = ActorRefFrom<typeof sessionMachine>;

/** What the supervisor sends its slot runner: the commands of the slot at the head of the mailbox. */
export interface SlotRunEvent {
  readonly type: 'slot.run';
  readonly commands: readonly MailboxCommand[];
}

const isDeliveryCommit = (command: MailboxCommand): boolean => command.operation.kind === 'delivery.commit';

/**
 * The commands one slot takes from the head of the mailbox: the head alone, or — when the head
 * is a delivery commit — the whole run of delivery commits behind it, written as one batch. Other
 * calls never share a slot, so every call still sees exactly the changes queued before it.
 */
export function slotCommands(queue: readonly MailboxCommand[]): readonly MailboxCommand[] {
  const head = queue[0];
  if (head === undefined) return [];
  if (!isDeliveryCommit(head)) return [head];
  let end = 1;
  while (end < queue.length && isDeliveryCommit(queue[end]!)) end++;
  return queue.slice(0, end);
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

export const supervisorMachine = setup({
  types: {
    context: {} as SupervisorContext,
    events: {} as SupervisorEvent,
    emitted: {} as SupervisorEmitted,
  },
  actors: {
    session: sessionMachine,
    /** Loads and decodes the stored domain; provided by the service. */
    openDomain: fromPromise<OpenedDomain>(async () => {
      throw new Error('openDomain is provided by the service');
    }),
    /** Runs mailbox slots one at a time: receives `slot.run`, answers `slot.done`; provided by the service. */
    slotRunner: fromCallback<SlotRunEvent>(() => {
      throw new Error('slotRunner is provided by the service');
    }),
    /** Closes the storage; provided by the service. */
    closeDomain: fromPromise<void>(async () => {
      throw new Error('closeDomain is provided by the service');
    }),
  },
  guards: {
    hasQueued: ({ context }) => context.queue.length > 0,
    closeRequested: ({ context }) => context.closeRequested,
  },
  actions: {
    enqueueCommand: assign(({ context, event }) => {
      if (event.type === 'command') return { queue: [...context.queue, event.command] };
      if (event.type === 'delivery.flushed') {
        const command: MailboxCommand = {
          requestId: null,
          operation: { kind: 'delivery.commit', sessionId: event.sessionId, outcome: event.outcome },
        };
        return { queue: [...context.queue, command] };
      }
      return {};
    }),
    dequeue: assign(({ context, event }) => ({ queue: context.queue.slice(event.type === 'slot.done' ? event.count : 1) })),
    requestClose: assign({ closeRequested: true }),
    /** Spawns Session actors and their task actors; the rows of one Session arrive in one event. */
    spawnRows: enqueueActions(({ enqueue, event, self }) => {
      const rows = 'output' in event ? (event.output as OpenedDomain).activeRows : [];
      const children = self.getSnapshot().children as Record<string, SessionRef | undefined>;
      for (const [sessionId, group] of groupBySession(rows)) {
        const id = sessionActorId(sessionId);
        if (children[id] === undefined) enqueue.spawnChild('session', { id, input: { sessionId } });
        enqueue.sendTo(id, { type: 'tasks.spawn', rows: group });
      }
    }),
    /** Routes a committed slot's effects to the Session actors. */
    applyEffects: enqueueActions(({ enqueue, event, self }) => {
      if (event.type !== 'slot.done') return;
      const outcome = event.outcome;
      const children = self.getSnapshot().children as Record<string, SessionRef | undefined>;
      const spawned = new Set<string>();
      const ensureSession = (sessionId: string): string => {
        const id = sessionActorId(sessionId);
        if (children[id] === undefined && !spawned.has(id)) {
          enqueue.spawnChild('session', { id, input: { sessionId } });
          spawned.add(id);
        }
        return id;
      };
      for (const effect of outcome.effects as readonly ActorEffect[]) {
        switch (effect.type) {
          case 'spawn':
            for (const [sessionId, group] of groupBySession(effect.rows)) {
              enqueue.sendTo(ensureSession(sessionId), { type: 'tasks.spawn', rows: group });
            }
            break;
          case 'put':
            enqueue.sendTo(ensureSession(effect.row.sessionId), { type: 'task.put', row: effect.row, now: effect.now });
            break;
          case 'remove': {
            const session = children[sessionActorId(effect.sessionId)];
            if (session === undefined) break;
            if (effect.retire) enqueue.stopChild(session);
            else enqueue.sendTo(session, { type: 'tasks.remove', ids: effect.ids });
            break;
          }
          case 'settle': {
            const session = children[sessionActorId(effect.sessionId)];
            if (session === undefined) break;
            enqueue.sendTo(session, {
              type: 'delivery.settle',
              committed: effect.committed,
              failedIds: effect.failedIds,
              now: effect.now,
            });
            if (effect.retire) enqueue.stopChild(session);
            break;
          }
        }
      }
    }),
    /** Hands the slot's reply and committed changes to the service. */
    reportSlot: enqueueActions(({ enqueue, event, context }) => {
      if (event.type !== 'slot.done') return;
      const outcome = event.outcome;
      const requestIds = context.queue.slice(0, event.count).map((command) => command.requestId);
      const requestId = requestIds.length === 1 ? requestIds[0]! : null;
      if (requestId !== null) enqueue.emit({ type: 'reply', requestId, reply: outcome.reply });
      if (outcome.changes.length > 0) enqueue.emit({ type: 'changed', changes: outcome.changes });
      enqueue.emit({ type: 'slot.done', requestIds });
    }),
    routeDue: enqueueActions(({ enqueue, event, self }) => {
      if (event.type !== 'clock.wake') return;
      const children = self.getSnapshot().children as Record<string, SessionRef | undefined>;
      for (const group of event.due) {
        const session = children[sessionActorId(group.sessionId)];
        if (session !== undefined) enqueue.sendTo(session, { type: 'tasks.due', now: event.now, ids: group.ids });
      }
    }),
    reportDeliveryFailure: emit(({ event }) => {
      const failed = event as DeliveryFailedEvent;
      return { type: 'delivery.failed' as const, sessionId: failed.sessionId, ids: failed.ids, now: failed.now };
    }),
  },
}).createMachine({
  id: 'supervisor',
  context: { queue: [], closeRequested: false },
  initial: 'opening',
  states: {
    opening: {
      description: 'Decodes the stored domain and spawns the actors of the active tasks.',
      invoke: {
        src: 'openDomain',
        onDone: { target: 'running', actions: 'spawnRows' },
        onError: { target: 'failed' },
      },
    },
    running: {
      description: 'One mailbox: calls and delivery commits run one slot at a time, in arrival order.',
      initial: 'idle',
      invoke: { id: 'slots', src: 'slotRunner' },
      on: {
        command: { actions: 'enqueueCommand' },
        'delivery.flushed': { actions: 'enqueueCommand' },
        'delivery.failed': { actions: 'reportDeliveryFailure' },
        'clock.wake': { actions: 'routeDue' },
        close: { actions: 'requestClose' },
      },
      states: {
        idle: {
          description: 'The mailbox is empty.',
          always: [
            { guard: 'hasQueued', target: 'busy' },
            { guard: 'closeRequested', target: '#supervisor.closing' },
          ],
        },
        busy: {
          description: 'The slot at the head of the mailbox runs; its write is awaited here.',
          entry: sendTo('slots', ({ context }): SlotRunEvent => ({ type: 'slot.run', commands: slotCommands(context.queue) })),
          on: { 'slot.done': { target: 'idle', actions: ['applyEffects', 'reportSlot', 'dequeue'] } },
        },
      },
    },
    closing: {
      description: 'The mailbox is drained; the storage closes.',
      invoke: {
        src: 'closeDomain',
        onDone: { target: 'closed' },
        onError: { target: 'closed' },
      },
    },
    /**
     * The domain is closed. Deliberately not a final state: reaching one makes XState stop every
     * descendant one at a time, copying the parent's children map for each (quadratic in the
     * children of an actor). A closed supervisor is idle and holds no timers; the service drops
     * its reference and the whole tree is reclaimed by the garbage collector.
     */
    closed: { description: 'Closed; the service has dropped the actor tree.' },
    failed: { type: 'final', description: 'The stored domain could not be opened.' },
  },
});

export type SupervisorMachine = typeof supervisorMachine;

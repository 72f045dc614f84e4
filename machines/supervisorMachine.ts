// The root of the actor system: `opening` (decode the stored domain and spawn the actors) →
// `running` (one mailbox: every call and every delivery commit takes its place in arrival order
// and runs alone, its persistence awaited inside its slot) → `closing` (once the mailbox is
// drained) → `closed`. Session actors — one per Session with active tasks — live in Session
// groups (`sessionGroupMachine.ts`); the supervisor routes the timer's due tasks and each slot's
// committed effects to them through their groups. The slot's work — validation,
// the write through the storage port — is done by the `slotRunner` actor the service provides (one
// long-lived child: it receives `slot.run` and answers `slot.done`, so a slot spawns nothing), as
// are `openDomain` and `closeDomain`; this file holds no I/O.
import { assign, emit, enqueueActions, fromCallback, fromPromise, sendTo, setup } from 'xstate';
import type { TaskRow } from '../src/domain/types.ts';
import type { ActorEffect, CommandOutcome, DueTasks, MailboxCommand, SupervisorEmitted } from './events.ts';
import { sessionGroupId } from './events.ts';
import { emptyMailbox, type Mailbox, mailboxDrop, mailboxHead, mailboxItems, mailboxPush } from './mailbox.ts';
import { type SessionRoute, sessionGroupMachine } from './sessionGroupMachine.ts';
import type { DeliveryFailedEvent, DeliveryFlushedEvent } from './sessionMachine.ts';

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
  readonly queue: Mailbox<MailboxCommand>;
  readonly closeRequested: boolean;
}

/** What `openDomain` yields: the active rows to spawn actors for. */
export interface OpenedDomain {
  readonly activeRows: readonly TaskRow[];
}

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
export function slotCommands(queue: Mailbox<MailboxCommand>): readonly MailboxCommand[] {
  const head = mailboxHead(queue, 1);
  if (head.length === 0 || !isDeliveryCommit(head[0]!)) return head;
  const commands: MailboxCommand[] = [];
  for (const command of mailboxItems(queue)) {
    if (!isDeliveryCommit(command)) break;
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

/** What the supervisor sends one Session group: its routes, and whether the group must be spawned first. */
interface GroupSend {
  readonly id: string;
  readonly spawn: boolean;
  readonly event: { readonly type: 'sessions.route'; readonly routes: readonly SessionRoute[] };
}

/** Session routes gathered per Session group, in the order they were added. */
class GroupRoutes {
  private readonly byGroup = new Map<string, SessionRoute[]>();

  add(route: SessionRoute): void {
    const id = sessionGroupId(route.sessionId);
    const routes = this.byGroup.get(id);
    if (routes === undefined) this.byGroup.set(id, [route]);
    else routes.push(route);
  }

  /**
   * One send per group with routes. A missing group is spawned when one of its routes may spawn
   * a Session; otherwise none of its Sessions has an actor and the routes are dropped.
   */
  sends(children: Readonly<Record<string, unknown>>): GroupSend[] {
    const out: GroupSend[] = [];
    for (const [id, routes] of this.byGroup) {
      const exists = children[id] !== undefined;
      if (!exists && !routes.some((route) => route.type === 'send' && route.spawn)) continue;
      out.push({ id, spawn: !exists, event: { type: 'sessions.route', routes } });
    }
    return out;
  }
}

export const supervisorMachine = setup({
  types: {
    context: {} as SupervisorContext,
    events: {} as SupervisorEvent,
    emitted: {} as SupervisorEmitted,
  },
  actors: {
    sessionGroup: sessionGroupMachine,
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
    hasQueued: ({ context }) => context.queue.size > 0,
    closeRequested: ({ context }) => context.closeRequested,
  },
  actions: {
    enqueueCommand: assign(({ context, event }) => {
      if (event.type === 'command') return { queue: mailboxPush(context.queue, event.command) };
      if (event.type === 'delivery.flushed') {
        const command: MailboxCommand = {
          requestId: null,
          operation: { kind: 'delivery.commit', sessionId: event.sessionId, outcome: event.outcome },
        };
        return { queue: mailboxPush(context.queue, command) };
      }
      return {};
    }),
    dequeue: assign(({ context, event }) => ({ queue: mailboxDrop(context.queue, event.type === 'slot.done' ? event.count : 1) })),
    requestClose: assign({ closeRequested: true }),
    /** Spawns Session actors and their task actors; the rows of one Session arrive in one event. */
    spawnRows: enqueueActions(({ enqueue, event, self }) => {
      const rows = 'output' in event ? (event.output as OpenedDomain).activeRows : [];
      const routes = new GroupRoutes();
      for (const [sessionId, group] of groupBySession(rows)) {
        routes.add({ type: 'send', sessionId, event: { type: 'tasks.spawn', rows: group }, spawn: true });
      }
      for (const group of routes.sends(self.getSnapshot().children)) {
        if (group.spawn) enqueue.spawnChild('sessionGroup', { id: group.id });
        enqueue.sendTo(group.id, group.event);
      }
    }),
    /** Routes a committed slot's effects to the Session actors. */
    applyEffects: enqueueActions(({ enqueue, event, self }) => {
      if (event.type !== 'slot.done') return;
      const routes = new GroupRoutes();
      for (const effect of event.outcome.effects as readonly ActorEffect[]) {
        switch (effect.type) {
          case 'spawn':
            for (const [sessionId, group] of groupBySession(effect.rows)) {
              routes.add({ type: 'send', sessionId, event: { type: 'tasks.spawn', rows: group }, spawn: true });
            }
            break;
          case 'put':
            routes.add({
              type: 'send',
              sessionId: effect.row.sessionId,
              event: { type: 'task.put', row: effect.row, now: effect.now },
              spawn: true,
            });
            break;
          case 'remove':
            if (effect.retire) routes.add({ type: 'retire', sessionId: effect.sessionId });
            else routes.add({ type: 'send', sessionId: effect.sessionId, event: { type: 'tasks.remove', ids: effect.ids }, spawn: false });
            break;
          case 'settle':
            routes.add({
              type: 'send',
              sessionId: effect.sessionId,
              event: { type: 'delivery.settle', committed: effect.committed, failedIds: effect.failedIds, now: effect.now },
              spawn: false,
            });
            if (effect.retire) routes.add({ type: 'retire', sessionId: effect.sessionId });
            break;
        }
      }
      for (const group of routes.sends(self.getSnapshot().children)) {
        if (group.spawn) enqueue.spawnChild('sessionGroup', { id: group.id });
        enqueue.sendTo(group.id, group.event);
      }
    }),
    /** Hands the slot's reply and committed changes to the service. */
    reportSlot: enqueueActions(({ enqueue, event, context }) => {
      if (event.type !== 'slot.done') return;
      const outcome = event.outcome;
      const requestIds = mailboxHead(context.queue, event.count).map((command) => command.requestId);
      const requestId = requestIds.length === 1 ? requestIds[0]! : null;
      if (requestId !== null) enqueue.emit({ type: 'reply', requestId, reply: outcome.reply });
      if (outcome.changes.length > 0) enqueue.emit({ type: 'changed', changes: outcome.changes });
      enqueue.emit({ type: 'slot.done', requestIds });
    }),
    routeDue: enqueueActions(({ enqueue, event, self }) => {
      if (event.type !== 'clock.wake') return;
      const routes = new GroupRoutes();
      for (const due of event.due) {
        routes.add({ type: 'send', sessionId: due.sessionId, event: { type: 'tasks.due', now: event.now, ids: due.ids }, spawn: false });
      }
      for (const group of routes.sends(self.getSnapshot().children)) {
        if (group.spawn) enqueue.spawnChild('sessionGroup', { id: group.id });
        enqueue.sendTo(group.id, group.event);
      }
    }),
    reportDeliveryFailure: emit(({ event }) => {
      const failed = event as DeliveryFailedEvent;
      return { type: 'delivery.failed' as const, sessionId: failed.sessionId, ids: failed.ids, now: failed.now };
    }),
  },
}).createMachine({
  id: 'supervisor',
  context: { queue: emptyMailbox(), closeRequested: false },
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

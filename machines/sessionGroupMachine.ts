// A group of Session actors between the supervisor and the Sessions. XState copies an actor's
// whole children map on every spawn and every stop, and a map of thousands of entries copies at
// about 0.7 µs an entry: with every Session directly under the supervisor, the 20,000th Session to
// get a task paid about 14 ms for its spawn alone, and 20,000 Sessions with one task each took over
// three minutes to create. Each Session belongs to one of `SESSION_GROUPS` groups, chosen by a
// hash of its id, so the maps copied stay small. A group only routes: it spawns its Sessions'
// actors when they get active tasks, forwards events to them in order, stops (retires) them, and
// passes their failed attempts up to the supervisor. Events that only reach Sessions already live
// (`sessions.send`: a burst's due tasks and settled attempts) take the machine's flat logic
// (`sessionGroupLogic`, the one the supervisor spawns); those that spawn or retire take XState's.
import { type AnyActorRef, enqueueActions, sendParent, setup } from 'xstate';
import { type SupervisorRuntime, sessionActorId, type TasksFailedEvent } from './events.ts';
import { type EffectArgs, flatMachineLogic, machineEffects, type Outbox } from './flatLogic.ts';
import { type AttemptRunnerRef, type SessionEvent, sessionLogic } from './sessionMachine.ts';

/** One step for one Session of the group, applied in order. */
export type SessionRoute =
  /** Sends `event` to the Session's actor; `spawn` creates the actor first when it does not exist. */
  | { readonly type: 'send'; readonly sessionId: string; readonly event: SessionEvent; readonly spawn: boolean }
  /** Stops the Session's actor and its task actors (the Session has no active task left). */
  | { readonly type: 'retire'; readonly sessionId: string };

/** One event for a Session of the group, sent only if its actor is live. */
export interface SessionSend {
  readonly sessionId: string;
  readonly event: SessionEvent;
}

export type SessionGroupEvent =
  | { readonly type: 'sessions.route'; readonly routes: readonly SessionRoute[] }
  /** Events for live Sessions only, in order (those of a Session without an actor are dropped): nothing is spawned or retired. */
  | { readonly type: 'sessions.send'; readonly sends: readonly SessionSend[] }
  | TasksFailedEvent;

/** What a group hands each Session actor it spawns: the effects' handle and the runner of their attempts. */
export interface SessionGroupContext {
  readonly runtime: SupervisorRuntime | undefined;
  readonly attempts: AttemptRunnerRef | undefined;
}

/** The group's effects, which both its machine and its flat logic run. */
const sessionGroupEffects = {
  /** Sends each event to its Session's actor when it is live. */
  forward: ({ event, self }: EffectArgs<SessionGroupContext, SessionGroupEvent>, outbox: Outbox): undefined => {
    if (event.type !== 'sessions.send') return undefined;
    const children = self.getSnapshot().children as Readonly<Record<string, AnyActorRef | undefined>>;
    for (const send of event.sends) {
      const session = children[sessionActorId(send.sessionId)];
      if (session !== undefined) outbox.send(session, send.event);
    }
    return undefined;
  },
};

export const sessionGroupMachine = setup({
  types: {
    context: {} as SessionGroupContext,
    input: {} as Partial<SessionGroupContext> | undefined,
    events: {} as SessionGroupEvent,
  },
  actors: {
    session: sessionLogic,
  },
  actions: {
    route: enqueueActions(({ enqueue, event, self, context }) => {
      if (event.type !== 'sessions.route') return;
      // Spawns and stops queued here land in the snapshot only after this action, so the live
      // set is tracked alongside it.
      const children = self.getSnapshot().children as Record<string, unknown>;
      const live = new Map<string, boolean>();
      const isLive = (id: string): boolean => live.get(id) ?? children[id] !== undefined;
      for (const route of event.routes) {
        const id = sessionActorId(route.sessionId);
        if (route.type === 'retire') {
          if (!isLive(id)) continue;
          enqueue.stopChild(id);
          live.set(id, false);
          continue;
        }
        if (!isLive(id)) {
          if (!route.spawn) continue;
          enqueue.spawnChild('session', {
            id,
            input: { sessionId: route.sessionId, runtime: context.runtime, attempts: context.attempts },
          });
          live.set(id, true);
        }
        enqueue.sendTo(id, route.event);
      }
    }),
    forwardUp: sendParent(({ event }) => event),
    ...machineEffects<SessionGroupContext, SessionGroupEvent, typeof sessionGroupEffects>(sessionGroupEffects),
  },
}).createMachine({
  id: 'sessionGroup',
  context: ({ input }) => ({ runtime: input?.runtime, attempts: input?.attempts }),
  initial: 'routing',
  states: {
    routing: {
      description: "Routes events to the group's Session actors, spawns and retires them, and passes their failed attempts up.",
      on: {
        'sessions.route': { actions: 'route' },
        'sessions.send': { actions: 'forward' },
        'tasks.failed': { actions: 'forwardUp' },
      },
    },
  },
});

export type SessionGroupMachine = typeof sessionGroupMachine;

/**
 * The Session group machine run by `flatMachineLogic`: `sessions.send` takes the flat step; the
 * events that spawn, stop or tell the parent take XState's own algorithm.
 */
export const sessionGroupLogic = flatMachineLogic(sessionGroupMachine, {
  guards: {},
  updates: {},
  effects: sessionGroupEffects,
  delegated: ['sessions.route', 'tasks.failed'],
});

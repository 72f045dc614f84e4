// A group of Session actors between the supervisor and the Sessions. XState copies an actor's whole
// children map on every spawn and every stop, so a spawn costs time in proportion to its siblings:
// with every Session directly under the supervisor, creating n Sessions would cost time quadratic
// in n. Each Session belongs to one of `SESSION_GROUPS` groups, chosen by a hash of its id, so the
// maps copied stay small. A group only holds its Sessions' actors: it spawns them when they get
// active tasks, forwards in order the events that come with a spawn or a retire, stops (retires)
// them, and passes their failed attempts up to the supervisor. The supervisor sends every other
// event straight to a live Session's actor (`sessionRoutes.ts`), so a delivery takes no hop
// through a group.
import { enqueueActions, sendParent, setup } from 'xstate';
import { type SupervisorRuntime, sessionActorId, type TasksFailedEvent } from './events.ts';
import { type AttemptRunnerRef, type SessionEvent, sessionLogic } from './sessionMachine.ts';

/** One step for one Session of the group, applied in order. */
export type SessionRoute =
  /** Sends `event` to the Session's actor; `spawn` creates the actor first when it does not exist. */
  | { readonly type: 'send'; readonly sessionId: string; readonly event: SessionEvent; readonly spawn: boolean }
  /** Stops the Session's actor and its task actors (the Session has no active task left). */
  | { readonly type: 'retire'; readonly sessionId: string };

export type SessionGroupEvent = { readonly type: 'sessions.route'; readonly routes: readonly SessionRoute[] } | TasksFailedEvent;

/** What a group hands each Session actor it spawns: the effects' handle and the runner of their attempts. */
export interface SessionGroupContext {
  readonly runtime: SupervisorRuntime | undefined;
  readonly attempts: AttemptRunnerRef | undefined;
}

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
        'tasks.failed': { actions: 'forwardUp' },
      },
    },
  },
});

export type SessionGroupMachine = typeof sessionGroupMachine;

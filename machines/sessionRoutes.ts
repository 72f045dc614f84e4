// Where the supervisor's events for Sessions go. A Session whose actor is live is sent its events
// straight (one hop); only what spawns or retires a Session actor goes through its Session group,
// the one actor that may change its children. Events for one Session keep their order: its direct
// sends come first and stop at its first retire, after which its routes all go through the group.
import type { AnyActorRef } from 'xstate';
import { sessionActorId, sessionGroupId } from './events.ts';
import type { SessionGroupEvent, SessionRoute } from './sessionGroupMachine.ts';
import type { SessionEvent } from './sessionMachine.ts';

/** An event for a live Session actor, sent to it directly. */
export interface DirectSend {
  readonly session: AnyActorRef;
  readonly event: SessionEvent;
}

/** What the supervisor sends one Session group: its routes, and whether the group must be spawned first. */
export interface GroupSend {
  readonly id: string;
  readonly spawn: boolean;
  readonly event: Extract<SessionGroupEvent, { readonly type: 'sessions.route' }>;
}

/** Session routes gathered per Session, in the order they were added. */
export class SessionRoutes {
  private readonly bySession = new Map<string, SessionRoute[]>();

  add(route: SessionRoute): void {
    const routes = this.bySession.get(route.sessionId);
    if (routes === undefined) this.bySession.set(route.sessionId, [route]);
    else routes.push(route);
  }

  /**
   * The sends, given the supervisor's children (its Session groups): a live Session's events up to
   * its first retire straight to its actor; every other route through its group. A missing group
   * is spawned when one of its routes may spawn a Session; otherwise no Session of it has an actor
   * and the routes are dropped, as are those of a Session without an actor that nothing spawns.
   */
  sends(groups: Readonly<Record<string, unknown>>): { readonly direct: DirectSend[]; readonly groups: GroupSend[] } {
    const direct: DirectSend[] = [];
    const byGroup = new Map<string, SessionRoute[]>();
    for (const [sessionId, routes] of this.bySession) {
      const groupId = sessionGroupId(sessionId);
      const group = groups[groupId] as AnyActorRef | undefined;
      const session = group?.getSnapshot().children[sessionActorId(sessionId)] as AnyActorRef | undefined;
      let i = 0;
      if (session !== undefined) {
        for (; i < routes.length; i++) {
          const route = routes[i] as SessionRoute;
          if (route.type !== 'send') break;
          direct.push({ session, event: route.event });
        }
      }
      const rest = i === 0 ? routes : routes.slice(i);
      if (rest.length === 0) continue;
      if (session === undefined && !rest.some((route) => route.type === 'send' && route.spawn)) continue;
      const list = byGroup.get(groupId);
      if (list === undefined) byGroup.set(groupId, [...rest]);
      else list.push(...rest);
    }
    const out: GroupSend[] = [];
    for (const [id, routes] of byGroup) out.push({ id, spawn: groups[id] === undefined, event: { type: 'sessions.route', routes } });
    return { direct, groups: out };
  }
}

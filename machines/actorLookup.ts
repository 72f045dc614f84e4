// Reading the actor tree under a supervisor: a Session's actor (in its Session group). Snapshots
// only — nothing here changes an actor — so the runtime reads the attempt in flight from the
// Session actor that owns it. A task's retry state is never read here: its actor reports its wake.
import type { ActorRefFrom, AnyActorRef } from 'xstate';
import { SESSION_GROUP_PREFIX, sessionActorId, sessionGroupId } from './events.ts';
import type { SessionMachine } from './sessionMachine.ts';

type SessionRef = ActorRefFrom<SessionMachine>;

/** The actor of a Session under `supervisor`, if it has one. */
export function sessionActorOf(supervisor: AnyActorRef, sessionId: string): SessionRef | undefined {
  const group = supervisor.getSnapshot().children?.[sessionGroupId(sessionId)] as AnyActorRef | undefined;
  return group?.getSnapshot().children?.[sessionActorId(sessionId)] as SessionRef | undefined;
}

/** True while the Session's actor has a delivery attempt in flight (delivering or committing). */
export function isAttempting(supervisor: AnyActorRef, sessionId: string): boolean {
  const session = sessionActorOf(supervisor, sessionId)?.getSnapshot();
  // The Session machine is flat: its value is the state's name.
  return session?.status === 'active' && session.value !== 'idle';
}

/** True while any Session actor under `supervisor` has a delivery attempt in flight. */
export function anyAttemptInFlight(supervisor: AnyActorRef): boolean {
  const groups: Record<string, AnyActorRef | undefined> = supervisor.getSnapshot().children ?? {};
  for (const id in groups) {
    if (!id.startsWith(SESSION_GROUP_PREFIX)) continue;
    const sessions: Record<string, AnyActorRef | undefined> = groups[id]?.getSnapshot().children ?? {};
    for (const sessionId in sessions) {
      const session = sessions[sessionId]?.getSnapshot();
      if (session?.status === 'active' && session.value !== 'idle') return true;
    }
  }
  return false;
}

/** How many Session actors live under `supervisor` (Sessions with active tasks in memory). */
export function sessionActorCount(supervisor: AnyActorRef): number {
  const groups: Record<string, AnyActorRef | undefined> = supervisor.getSnapshot().children ?? {};
  let count = 0;
  for (const id in groups) {
    if (!id.startsWith(SESSION_GROUP_PREFIX)) continue;
    const sessions: Record<string, AnyActorRef | undefined> = groups[id]?.getSnapshot().children ?? {};
    for (const sessionId in sessions) if (sessions[sessionId]?.getSnapshot().status === 'active') count++;
  }
  return count;
}

// The Host's live events, fanned out to every Server-Sent Events client: `schedule/changed`
// from the service, `delivery` when a Session's transcript grew (a delivered reminder and the
// demo agent's answer), and `clock` when the test clock moved.
import type { ScheduleChange } from '../../src/index.ts';
import type { TranscriptAppend } from '../sessions/fileSessions.ts';
import type { HostStack } from '../stack.ts';

/** One live event. */
export type HostEvent =
  | { readonly type: 'schedule/changed'; readonly data: Omit<ScheduleChange, 'type'> }
  | { readonly type: 'delivery'; readonly data: TranscriptAppend }
  | { readonly type: 'clock'; readonly data: { readonly now: string } };

export interface EventHub {
  subscribe(listener: (event: HostEvent) => void): () => void;
  emit(event: HostEvent): void;
  /** Stops listening to the service and the Sessions. */
  close(): void;
}

/** Listens to the stack's service and Sessions. */
export function createEventHub(stack: HostStack): EventHub {
  const listeners = new Set<(event: HostEvent) => void>();
  const emit = (event: HostEvent) => {
    for (const listener of [...listeners]) listener(event);
  };
  const offService = stack.service.subscribe(({ sessionId, ids }) => emit({ type: 'schedule/changed', data: { sessionId, ids } }));
  const offSessions = stack.sessions.subscribe((append) => emit({ type: 'delivery', data: append }));
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    emit,
    close() {
      offService();
      offSessions();
      listeners.clear();
    },
  };
}

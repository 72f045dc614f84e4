// The console's live events, fanned out to every Server-Sent Events client: `schedule/changed`
// from the service, `delivery` when a Session's transcript grew (a delivered reminder and an
// agent's answer; only when the Host gave its transcripts), and whatever the Host emits itself
// (the reference Host's `clock` when its test clock moved).
import type { ConsoleEvent, ConsoleService, ConsoleTranscripts } from './options.ts';

export interface EventHub {
  subscribe(listener: (event: ConsoleEvent) => void): () => void;
  emit(event: ConsoleEvent): void;
  /** Stops listening to the service and the transcripts. */
  close(): void;
}

/** Listens to `service` and, when given, `transcripts`. */
export function createEventHub(service: ConsoleService, transcripts: ConsoleTranscripts | undefined): EventHub {
  const listeners = new Set<(event: ConsoleEvent) => void>();
  const emit = (event: ConsoleEvent) => {
    for (const listener of [...listeners]) listener(event);
  };
  const offService = service.subscribe(({ sessionId, ids }) => emit({ type: 'schedule/changed', data: { sessionId, ids } }));
  const offTranscripts = transcripts?.subscribe?.((append) => emit({ type: 'delivery', data: append }));
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    emit,
    close() {
      offService();
      offTranscripts?.();
      listeners.clear();
    },
  };
}

// An attempt runner for machine tests: a started actor that answers each Session's `attempt.run`
// with what `deliver` resolves to (`attempt.done`) or rejects with (`attempt.failed`).
import { createActor, fromCallback } from 'xstate';
import type { DeliveryOutcome, DeliveryRequest } from '../../machines/events.ts';
import type { AttemptRunEvent, AttemptRunnerRef } from '../../machines/sessionMachine.ts';

export function attemptRunner(deliver: (request: DeliveryRequest) => Promise<DeliveryOutcome>): AttemptRunnerRef {
  const logic = fromCallback<AttemptRunEvent>(({ receive }) => {
    receive((event) => {
      deliver({ sessionId: event.sessionId, rows: event.rows }).then(
        (outcome) => event.replyTo.send({ type: 'attempt.done', outcome }),
        (error: unknown) => event.replyTo.send({ type: 'attempt.failed', error }),
      );
    });
  });
  return createActor(logic).start();
}

// An attempt runner for machine tests: a started actor that answers each Session's `attempt.run`
// with `attempt.done` once `deliver` resolves, or `attempt.failed` with what it rejects with.
import { createActor, fromCallback } from 'xstate';
import type { DeliveryOutcome, DeliveryRequest } from '../../machines/events.ts';
import type { AttemptRunEvent, AttemptRunnerRef } from '../../machines/sessionMachine.ts';

export function attemptRunner(deliver: (request: DeliveryRequest) => Promise<DeliveryOutcome>): AttemptRunnerRef {
  const logic = fromCallback<AttemptRunEvent>(({ receive }) => {
    receive((event) => {
      deliver({ sessionId: event.sessionId, rows: event.rows }).then(
        () => event.replyTo.send({ type: 'attempt.done' }),
        (error: unknown) => event.replyTo.send({ type: 'attempt.failed', error }),
      );
    });
  });
  return createActor(logic).start();
}

// Retrying failed deliveries (docs/delivery.md): the backoff and the failure status one failed
// attempt leaves on a task. The task machine applies it to its context; nothing else keeps a
// task's retry state.
import { formatInstant } from './instant.ts';
import type { DeliveryFailure, FailureStage } from './types.ts';

/** Retry of failed deliveries: the first after `initialMs`, doubling up to `maxMs`. */
export interface RetryPolicy {
  readonly initialMs: number;
  readonly maxMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { initialMs: 5_000, maxMs: 300_000 };

/** The wait before retry number `attempt` (1-based): initial, doubling, capped. */
export function retryDelay(policy: RetryPolicy, attempt: number): number {
  const doubled = policy.initialMs * 2 ** Math.min(attempt - 1, 52);
  return Math.min(doubled, policy.maxMs);
}

/** Where and why one attempt failed for a task, and how it is to be retried. */
export interface AttemptFailure {
  readonly stage: FailureStage;
  readonly message: string;
  /** The backoff, or false to park the task (tried again only on an unrelated wake or a restart). */
  readonly retry: RetryPolicy | false;
}

/** A task's retry state: its failure status and the backoff step its next failure takes. */
export interface RetryState {
  readonly failure: DeliveryFailure;
  /** Failed attempts since the task was last edited or retried now (the backoff step). */
  readonly retries: number;
}

/**
 * The retry state after one more failed attempt at `now`: the attempts counted since the last
 * committed delivery, the next retry on the backoff (none when parked).
 */
export function afterFailure(
  previous: { readonly failure?: DeliveryFailure | undefined; readonly retries?: number | undefined },
  failed: AttemptFailure,
  now: number,
): RetryState {
  const retries = (previous.retries ?? 0) + 1;
  const base = {
    attempts: (previous.failure?.attempts ?? 0) + 1,
    lastAt: formatInstant(now),
    stage: failed.stage,
    message: failed.message,
  };
  const failure: DeliveryFailure =
    failed.retry === false ? base : { ...base, nextRetryAt: formatInstant(now + retryDelay(failed.retry, retries)) };
  return { failure, retries };
}

/** The failure status once the backoff is forgotten (an edit or a retry now): no retry is scheduled. */
export function withoutRetry(failure: DeliveryFailure | undefined): DeliveryFailure | undefined {
  if (failure?.nextRetryAt === undefined) return failure;
  const { nextRetryAt: _, ...rest } = failure;
  return rest;
}

// Retrying failed deliveries (docs/delivery.md): the backoff and the failure status one failed
// attempt leaves on a task. The task machine applies it to its context; nothing else keeps a
// task's retry state.
import { formatInstant } from '../time/instant.ts';
import type { DeliveryFailure, FailureStage } from './types.ts';

/** Retry of failed deliveries: the first after `initialMs`, doubling up to `maxMs`. */
export interface RetryPolicy {
  readonly initialMs: number;
  readonly maxMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { initialMs: 5_000, maxMs: 300_000 };

/** The longest failure message a failure status keeps (and a stored row may carry). */
export const MAX_FAILURE_MESSAGE_LENGTH = 2_000;

/** What stands for the middle of a message that was too long. */
const ELIDED = ' … ';

/**
 * The message as a failure status keeps it: whole up to `MAX_FAILURE_MESSAGE_LENGTH` characters;
 * a longer one keeps its start and its end — where an error names the operation and where a long
 * path or URL ends — around an elision mark. A surrogate pair is never split.
 */
export function capFailureMessage(message: string): string {
  if (message.length <= MAX_FAILURE_MESSAGE_LENGTH) return message;
  const room = MAX_FAILURE_MESSAGE_LENGTH - ELIDED.length;
  let head = Math.ceil(room / 2);
  let tail = message.length - (room - head);
  // Neither half ends or starts inside a surrogate pair.
  if (isHighSurrogate(message.charCodeAt(head - 1))) head--;
  if (isLowSurrogate(message.charCodeAt(tail))) tail++;
  return `${message.slice(0, head)}${ELIDED}${message.slice(tail)}`;
}

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

/** True when two failure statuses say the same (either may be absent). */
export function sameFailure(a: DeliveryFailure | undefined, b: DeliveryFailure | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  return (
    a.attempts === b.attempts && a.lastAt === b.lastAt && a.stage === b.stage && a.message === b.message && a.nextRetryAt === b.nextRetryAt
  );
}

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
    message: capFailureMessage(failed.message),
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

// What one mailbox slot decides before anything is written: the batch to commit (if any), the
// answer for the caller, the effects on the actors and the change to announce once the batch is
// durable — and what happens instead when the write fails.
import type { ActorEffect, DomainChange, FailureCause, Operation, ReplyValue } from '../../machines/events.ts';
import type { ToolFailure } from '../domain/replies.ts';
import type { ScheduleView } from '../domain/types.ts';
import type { CommitBatch } from '../ports.ts';
import type { PendingCommit } from './pendingReceipts.ts';

/** How the caller's promise settles: with an answer of type `R`, or rejected with an error. */
export type SlotReply<R extends ReplyValue = ReplyValue> = { readonly resolve: R } | { readonly reject: Error };

/** The answer of a slot that changes one task: its view, or a refusal (a write that could not be confirmed). */
export type ViewReply = ScheduleView | ToolFailure;

/** One slot's plan; `R` is what its call resolves with. */
export interface SlotPlan<R extends ReplyValue = ReplyValue> {
  readonly reply: SlotReply<R>;
  readonly batch?: CommitBatch;
  readonly effects?: readonly ActorEffect[];
  readonly changes?: readonly DomainChange[];
  /**
   * Failures the effects hand to task actors (each task keeps its own retry state); the timer
   * re-queues the tasks once their actors have taken them, and logs each cause.
   */
  readonly failures?: readonly FailureCause[];
  /** Tasks to try again at once, their backoff forgotten (run now on a task whose request already waits). */
  readonly retryNow?: readonly string[];
  /** Problems to log as errors when the slot runs (the plan itself is pure). */
  readonly errors?: ReadonlyArray<{ readonly message: string; readonly data: unknown }>;
  /** Acknowledged reminders whose receipts the batch writes (kept pending when the write fails). */
  readonly commits?: readonly PendingCommit[];
  /** Pending receipts with nothing left to write (their task is gone or ended): forgotten. */
  readonly dropped?: readonly string[];
  /** The call goes on in another slot (a bulk call's next batch): `reply` is not sent, this is queued instead. */
  readonly continuation?: Operation;
  /**
   * The batch changes no task's timing (the failure write): the timer keeps every task where its
   * actor put it, and parked tasks get no extra try.
   */
  readonly keepsTiming?: true;
  /** The answer and effects when the batch could not be written. */
  readonly onWriteFailure?: (error: unknown) => {
    reply: SlotReply<R>;
    effects: readonly ActorEffect[];
    failures?: readonly FailureCause[];
    /** Receipts to keep pending: their write is retried, not their delivery. */
    commits?: readonly PendingCommit[];
    continuation?: Operation;
  };
}

export const resolved = <R extends ReplyValue>(value: R): SlotReply<R> => ({ resolve: value });

/** A rejection with `error`; a thrown value that is not an Error (an abort reason, say) is wrapped in one. */
export const rejected = (error: unknown): SlotReply<never> => ({ reject: replyError(error) });

/** What a call rejects with: the error itself, or an Error whose message and cause are the thrown value. */
export function replyError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error), { cause: error });
}

/** A slot that only answers (a read, or a refused request). */
export const answer = <R extends ReplyValue>(value: R): SlotPlan<R> => ({ reply: resolved(value) });

// What one mailbox slot decides before anything is written: the batch to commit (if any), the
// answer for the caller, the effects on the actors and the change to announce once the batch is
// durable — and what happens instead when the write fails.
import type { ActorEffect, DomainChange, FailureCause } from '../../machines/events.ts';
import type { CommitBatch } from '../ports.ts';
import type { PendingCommit } from './pendingReceipts.ts';

/** How the caller's promise settles. */
export type SlotReply = { readonly resolve: unknown } | { readonly reject: unknown };

export interface SlotPlan {
  readonly reply: SlotReply;
  readonly batch?: CommitBatch;
  readonly effects?: readonly ActorEffect[];
  readonly changes?: readonly DomainChange[];
  /** Tasks whose delivery failed, to retry with backoff (or park). */
  readonly failedIds?: readonly string[];
  /** Where and why they failed (their failure status). */
  readonly failureCauses?: readonly FailureCause[];
  /** Tasks to try again at once, their backoff forgotten (run now on a task whose request already waits). */
  readonly retryNow?: readonly string[];
  /** Tasks to park: tried again only on an unrelated wake or a restart. */
  readonly parkIds?: readonly string[];
  /** Problems to log as errors when the slot runs (the plan itself is pure). */
  readonly errors?: ReadonlyArray<{ readonly message: string; readonly data: unknown }>;
  /** Acknowledged reminders whose receipts the batch writes (kept pending when the write fails). */
  readonly commits?: readonly PendingCommit[];
  /** Pending receipts with nothing left to write (their task is gone or ended): forgotten. */
  readonly dropped?: readonly string[];
  /** The answer and effects when the batch could not be written. */
  readonly onWriteFailure?: (error: unknown) => {
    reply: SlotReply;
    effects: readonly ActorEffect[];
    failedIds?: readonly string[];
    failureCauses?: readonly FailureCause[];
    parkIds?: readonly string[];
    /** Receipts to keep pending: their write is retried, not their delivery. */
    commits?: readonly PendingCommit[];
  };
}

export const resolved = (value: unknown): SlotReply => ({ resolve: value });
export const rejected = (error: unknown): SlotReply => ({ reject: error });

/** A slot that only answers (a read, or a refused request). */
export const answer = (value: unknown): SlotPlan => ({ reply: resolved(value) });

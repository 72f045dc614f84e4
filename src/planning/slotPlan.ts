// What one mailbox slot decides before anything is written, as one of three kinds of plan: a read
// (it answers from the committed state and writes nothing, though it may still tell the actors and
// the timer), a write (the batch to commit, the answer, the effects and changes once the batch is
// durable, and what happens instead when the write fails), and a create, a write that needs a new
// task id — the slot runner reserves it when it executes the plan, so planning advances nothing.
import type {
  ActorEffect,
  DomainChange,
  FailureCause,
  Operation,
  ReplyValue,
  ScheduleReplyBody,
  WaitingReceipt,
} from '../../machines/events.ts';
import type { ToolFailure } from '../domain/reads/replies.ts';
import type { ScheduleView } from '../domain/tasks/types.ts';
import type { CommitBatch } from '../ports.ts';

/** The answer of a slot that changes one task: its view, or a refusal (a write that could not be confirmed). */
export type ViewReply = ScheduleView | ToolFailure;

/** A problem the slot runner logs as an error when it runs the plan (the plan itself is pure). */
export interface PlanError {
  readonly message: string;
  readonly data: unknown;
}

/** What a slot hands on, written or not: the answer, the actors' effects and the failures for the timer. */
interface Settles<R extends ReplyValue> {
  readonly reply: ScheduleReplyBody<R>;
  readonly effects: readonly ActorEffect[];
  /**
   * Failures the effects hand to task actors (each task keeps its own retry state); the timer
   * re-queues the tasks once their actors have taken them, and logs each cause.
   */
  readonly failures: readonly FailureCause[];
  /** The call goes on in another slot (a bulk call's next batch): `reply` is not sent, this is queued instead. */
  readonly continuation?: Operation;
}

/** What the plan tells the timer's owner and the log besides the effects. */
interface Notes {
  /** Tasks to try again at once, their backoff forgotten (run now on a task whose request already waits). */
  readonly retryNow: readonly string[];
  /** Waiting receipts with nothing left to write (their task is gone or ended): their write is over. */
  readonly dropped: readonly string[];
  readonly errors: readonly PlanError[];
}

/** A slot that writes nothing. */
export interface ReadPlan<R extends ReplyValue = ReplyValue> extends Settles<R>, Notes {
  readonly kind: 'read';
}

/** How a write plan's slot settles when its batch could not be written: nothing changes in memory. */
export interface Unwritten<R extends ReplyValue = ReplyValue> extends Settles<R> {
  /** Receipts whose write failed (their task actors hold them): their write is retried, not their delivery. */
  readonly commits: readonly WaitingReceipt[];
}

/** A slot that commits a batch, and settles as its plan says once the batch is durable. */
export interface WritePlan<R extends ReplyValue = ReplyValue> extends Settles<R>, Notes {
  readonly kind: 'write';
  readonly batch: CommitBatch;
  /** The changes announced once the batch is durable. */
  readonly changes: readonly DomainChange[];
  /** Acknowledged reminders whose receipts the batch writes (left waiting with their actors when the write fails). */
  readonly commits: readonly WaitingReceipt[];
  /**
   * `keep`: the batch changes no task's timing (the failure write), so the timer keeps every task
   * where its actor put it and parked tasks get no extra try; `track`: the timer follows the rows.
   */
  readonly timing: 'track' | 'keep';
  /** The answer and effects when the batch could not be written. */
  onWriteFailure(error: unknown): Unwritten<R>;
}

/**
 * A write that needs a new task id: `withId` is the write with that id. The slot runner reserves
 * the id as it executes the plan, just before the write; an id is never handed out twice.
 */
export interface CreatePlan<R extends ReplyValue = ReplyValue> {
  readonly kind: 'create';
  withId(id: string): WritePlan<R>;
}

/** A plan with nothing left to reserve: a read or a write. */
export type ReadyPlan<R extends ReplyValue = ReplyValue> = ReadPlan<R> | WritePlan<R>;

/** One slot's plan; `R` is what its call resolves with. */
export type SlotPlan<R extends ReplyValue = ReplyValue> = ReadyPlan<R> | CreatePlan<R>;

/** The reply of a call that resolves with `value` (an answer, or a refusal written for the model). */
export const resolved = <R extends ReplyValue>(value: R): ScheduleReplyBody<R> => ({ ok: true, value });

/** A read plan answering `reply`, with the effects, failures and notes given. */
export function read<R extends ReplyValue>(
  reply: ScheduleReplyBody<R>,
  more: Partial<Omit<ReadPlan<R>, 'kind' | 'reply'>> = {},
): ReadPlan<R> {
  return { kind: 'read', reply, effects: [], failures: [], retryNow: [], dropped: [], errors: [], ...more };
}

/** A slot that only answers (a read, or a refused request). */
export const answer = <R extends ReplyValue>(value: R): ReadPlan<R> => read(resolved(value));

/** What every write plan states: its answer, its batch, what it tells the actors and Sessions, and its failure. */
type WriteParts<R extends ReplyValue> = Pick<WritePlan<R>, 'reply' | 'batch' | 'effects' | 'changes' | 'onWriteFailure'>;

/** A write plan of `parts`, with the failures, receipts, notes and timing given (the timer follows its rows by default). */
export function write<R extends ReplyValue>(
  parts: WriteParts<R>,
  more: Partial<Omit<WritePlan<R>, 'kind' | keyof WriteParts<R>>> = {},
): WritePlan<R> {
  const { reply, batch, effects, changes, onWriteFailure } = parts;
  return {
    kind: 'write',
    reply,
    batch,
    effects,
    changes,
    failures: [],
    commits: [],
    retryNow: [],
    dropped: [],
    errors: [],
    timing: 'track',
    onWriteFailure,
    ...more,
  };
}

/** How a slot settles when its write failed: `reply`, with the effects, failures and waiting receipts given. */
export function unwritten<R extends ReplyValue>(
  reply: ScheduleReplyBody<R>,
  more: Partial<Omit<Unwritten<R>, 'reply'>> = {},
): Unwritten<R> {
  return { reply, effects: [], failures: [], commits: [], ...more };
}

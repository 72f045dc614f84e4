// The messages of the actor system: what the service sends the supervisor, what the supervisor
// routes to Session and task actors, what the effect actors return, and what the supervisor emits
// back, and the protocol a Host speaks with the supervisor (`schedule.call` / `schedule.reply` /
// `schedule.changed` / `schedule.close`). Plain data only, so the inspector can serialise every
// event — the one exception is `SupervisorRuntime`, the opaque handle of the effects, which
// serialises to a fixed label.
import type { AnyActorRef } from 'xstate';
import type { BulkProgress } from '../src/domain/tasks/bulk.ts';
import type { AttemptFailure, RetryPolicy } from '../src/domain/tasks/retry.ts';
import { SHARDS, shardOf as sessionShard } from '../src/domain/tasks/sessionShard.ts';
import type { DeliveryFailure, FailureStage, TaskRow } from '../src/domain/tasks/types.ts';
import type { RemoteMethod, ScheduleCall } from './replies.ts';
import type { ScheduleReplyBody, ScheduleReplyEvent } from './scheduleReply.ts';

/** One unit of work in the supervisor's mailbox. `requestId` is null for internal commands. */
export interface MailboxCommand {
  readonly requestId: string | null;
  readonly operation: Operation;
  /** Where the reply goes; without it, to the supervisor's parent (or emitted, for a root actor). */
  readonly replyTo?: AnyActorRef;
}

/** The Host's calls and the replies they settle with (replies.ts). */
export type {
  ArchiveCall,
  ArchiveMethod,
  ArchiveReplies,
  RemoteCall,
  RemoteMethod,
  RemoteReplies,
  ReplyOf,
  ReplyValue,
  ScheduleCall,
  ToolCall,
  ToolCalls,
} from './replies.ts';
/** The `schedule.reply` a call is answered with, typed by its operation (scheduleReply.ts). */
export type {
  OpOf,
  OpValue,
  Refusal,
  ScheduleOp,
  ScheduleReply,
  ScheduleReplyBody,
  ScheduleReplyError,
  ScheduleReplyEvent,
  ScheduleReplyFailure,
  ScheduleReplySuccess,
} from './scheduleReply.ts';

/** A call takes its place in the supervisor's mailbox; its reply goes to `replyTo`, else to the parent. */
export interface ScheduleCallEvent {
  readonly type: 'schedule.call';
  readonly requestId: string;
  readonly call: ScheduleCall;
  readonly replyTo?: AnyActorRef;
}

/** Sent to the supervisor's parent after each committed change. */
export interface ScheduleChangedEvent {
  readonly type: 'schedule.changed';
  readonly sessionId: string;
  readonly ids: readonly string[];
}

/**
 * The effects of one supervisor — storage, Sessions, clock and the in-memory table — as the
 * machines see them: an opaque handle created by the `openDomain` actor and handed, as input, to
 * the effect actors. `whenIdle` resolves once no call, delivery attempt or write is in progress,
 * read from the actors' states.
 */
export interface SupervisorRuntime {
  whenIdle(): Promise<void>;
  /** A task actor reported its next wake: the timer's owner keys the task by it. */
  taskWake(wake: TaskWake): void;
  /** How failed deliveries are retried (false: parked). */
  readonly retry: RetryPolicy | false;
  /** A fixed label: the handle sits in actor contexts, which inspectors serialise. */
  toJSON(): string;
}

/**
 * A task actor's next wake, emitted (`task.wake`) when a failed attempt, a committed delivery or
 * edit of a failing task, a retry now, or a tick that did not find it parked or overdue changes what it waits
 * for; the task group that spawned the actor hands it to the runtime (`SupervisorRuntime.taskWake`).
 * The timer keys the task by it, and a task's failure status is the one its latest wake carries.
 */
export interface TaskWake {
  readonly type: 'task.wake';
  readonly id: string;
  /**
   * `due`: a tick at `at` (its due instant) makes it overdue — none while it is paused with nothing
   * to run; `retry`: a tick at `at` (its next retry) retries it; `parked`: not on a timer, only an
   * unrelated wake tries it again.
   */
  readonly waits: 'due' | 'retry' | 'parked';
  /** When a tick next finds it due (epoch ms); undefined when parked or paused with nothing to run. */
  readonly at: number | undefined;
  /** Its failure status after the step (undefined once a delivery is committed). */
  readonly failure: DeliveryFailure | undefined;
  /**
   * The receipt waiting for its write, while the task has one (its actor's context holds it): the
   * timer sends it to be written again instead of handing the task to its Session.
   */
  readonly receipt?: WaitingReceipt | undefined;
}

/** What a mailbox slot does; the supervisor's `slotRunner` actor runs it (`runSlot`). */
export type Operation =
  | {
      readonly kind: 'tool';
      readonly sessionId: string;
      readonly name: string;
      readonly args: unknown;
      readonly signal?: AbortSignal;
      /** The caller's id of this call (SPEC §15); checked when the slot runs. */
      readonly callId?: unknown;
    }
  | { readonly kind: 'remote'; readonly method: RemoteMethod; readonly request: unknown; readonly callId?: unknown }
  | { readonly kind: 'archive.activity'; readonly sessionId: string }
  | { readonly kind: 'archive.stop'; readonly sessionId: string }
  | { readonly kind: 'delivery.commit'; readonly sessionId: string; readonly outcome: DeliveryOutcome }
  /** The next batch of a bulk call (`remote.bulk`), queued behind the work that arrived during the last one. */
  | { readonly kind: 'bulk.batch'; readonly progress: BulkProgress }
  /** The failure write: these tasks' actors took a failure, to be stored with their rows. */
  | { readonly kind: 'failure.record'; readonly ids: readonly string[] };

/** A reminder the Session acknowledged (its flush succeeded). */
export interface DeliveredReminder {
  readonly id: string;
  /** The occurrence delivered (epoch ms). */
  readonly occurrence: number;
  readonly messageId: string;
  /** When the flush succeeded (epoch ms). */
  readonly deliveredAt: number;
  readonly prompt: string;
  /** The record as it was when the delivery started, to detect an edit made meanwhile. */
  readonly startedRecord: TaskRow['record'];
  /** `"manual"` for a run-now delivery (`occurrence` is then the request's instant). */
  readonly trigger?: 'manual';
}

/**
 * A receipt waiting for its write: a reminder its Session acknowledged (the flush succeeded) whose
 * row write failed. Its task actor holds it in its context, in memory only (a restart loses it and
 * the reminder is delivered again: at-least-once), and reports it with its wake.
 */
export interface WaitingReceipt {
  readonly sessionId: string;
  readonly reminder: DeliveredReminder;
  /** The `now` of the attempt that delivered it: the row advances past it, as the first write would have. */
  readonly attemptNow: number;
}

/** Why some tasks of an attempt were not delivered: where it failed and the cause's message. */
export interface FailureCause {
  readonly ids: readonly string[];
  readonly stage: FailureStage;
  readonly message: string;
  /** The error itself, for the log. */
  readonly error?: unknown;
  /** Not retried on a timer (a message id that cannot be recorded); logged as an error already. */
  readonly park?: true;
}

/** The result of one delivery attempt for a Session. */
export interface DeliveryOutcome {
  /** The wall clock when the attempt chose its occurrences; recurring tasks advance past it. */
  readonly now: number;
  readonly delivered: readonly DeliveredReminder[];
  /** Tasks whose resolve, append or flush failed: nothing is recorded for them. */
  readonly failedIds: readonly string[];
  /**
   * Tasks appended under a message id the schedule cannot store (the Host broke the port's
   * contract): nothing is recorded, and they are not retried on a timer of their own.
   */
  readonly unrecordableIds: readonly string[];
  /** Where and why the failed tasks failed (absent in outcomes built without causes). */
  readonly causes?: readonly FailureCause[];
  /**
   * Set on an outcome that writes again receipts whose first write failed, as their tasks' wakes
   * reported them: nothing is delivered anew (`delivered` is empty).
   */
  readonly retried?: readonly WaitingReceipt[];
}

/**
 * One failed attempt as a task actor takes it; a failed write of an acknowledged reminder carries
 * its receipt, which the actor keeps until a write records it.
 */
export interface TaskAttemptFailure extends AttemptFailure {
  readonly receipt?: WaitingReceipt;
}

/** One failure of an attempt as the task actors receive it: the tasks, and how they are retried. */
export interface TaskFailures {
  readonly ids: readonly string[];
  readonly failure: TaskAttemptFailure;
}

/**
 * What the supervisor does to its actors after a slot; each effect is routed to the Session actor
 * as the event of the same name.
 */
export type ActorEffect =
  /** New active rows: spawned under their Session's actor (the Session actor is created if needed). */
  | { readonly type: 'tasks.spawn'; readonly rows: readonly TaskRow[] }
  /** A committed change to an active row. */
  | { readonly type: 'task.updated'; readonly row: TaskRow; readonly now: number }
  /** A receipt written by a retried write: the delivery of this row is committed. */
  | { readonly type: 'delivery.committed'; readonly row: TaskRow; readonly now: number }
  /** Rows removed (deleted) from a Session; `retire` when the Session has no active task left. */
  | { readonly type: 'tasks.remove'; readonly sessionId: string; readonly ids: readonly string[]; readonly retire: boolean }
  /** A delivery attempt ended: committed rows and failures go back to their task actors. */
  | {
      readonly type: 'delivery.settle';
      readonly sessionId: string;
      readonly committed: readonly TaskRow[];
      readonly failures: readonly TaskFailures[];
      readonly now: number;
      readonly retire: boolean;
    }
  /** The retried write of acknowledged receipts failed again: their tasks wait for the next retry. */
  | { readonly type: 'receipts.failed'; readonly sessionId: string; readonly failures: readonly TaskFailures[]; readonly now: number }
  /** Retry now: these failed tasks are tried again at once. */
  | { readonly type: 'tasks.retry'; readonly sessionId: string; readonly ids: readonly string[]; readonly now: number };

/**
 * Failed attempts whose tasks' actors have taken the failure: the timer re-queues each task at
 * its next retry (or parks it) and logs each cause once.
 */
export interface TasksFailedEvent {
  readonly type: 'tasks.failed';
  readonly causes: readonly FailureCause[];
}

/** One Session's flushed attempt, for the supervisor's mailbox to commit. */
export interface FlushedAttempt {
  readonly sessionId: string;
  readonly outcome: DeliveryOutcome;
}

/**
 * Flushed attempts' outcomes for the supervisor's mailbox to commit, one mailbox command each, in
 * order: from the attempt runner once Sessions' attempts are flushed (those flushed together
 * arrive in one event), or from the timer for receipts whose write is retried.
 */
export interface DeliveryFlushedEvent {
  readonly type: 'delivery.flushed';
  readonly flushed: readonly FlushedAttempt[];
}

/** A change committed to the domain, as the `schedule/changed` notification reports it. */
export interface DomainChange {
  readonly sessionId: string;
  readonly ids: readonly string[];
}

/**
 * What one mailbox slot did, as the slot runner reports it to the supervisor (`slot.done`): how
 * its call settles, the effects on the actors, the committed changes, and the failures its effects
 * hand to task actors.
 */
export interface CommandOutcome {
  readonly reply: ScheduleReplyBody;
  /**
   * One reply per command of a slot that answers several calls (a run of creates), in mailbox
   * order; `reply` is then unused.
   */
  readonly replies?: readonly ScheduleReplyBody[];
  readonly effects: readonly ActorEffect[];
  readonly changes: readonly DomainChange[];
  /** Failures the effects hand to task actors, for the timer once the actors have taken them. */
  readonly failures: readonly FailureCause[];
  /**
   * The call is not finished: this operation goes to the back of the mailbox under the same
   * request (its reply waits for it), so work queued meanwhile runs first.
   */
  readonly continuation?: Operation;
}

/** Tasks that became due, grouped by Session, as found by the service's timer. */
export interface DueTasks {
  readonly sessionId: string;
  readonly ids: readonly string[];
}

/** The input of a Session's delivery attempt. */
export interface DeliveryRequest {
  readonly sessionId: string;
  /** The due rows; the attempt reads the clock itself when it chooses their occurrences. */
  readonly rows: readonly TaskRow[];
}

/**
 * Events the supervisor emits (`actor.on(type, …)`): every committed change, and — for a root
 * supervisor with no parent, when a call names no `replyTo` — its replies.
 */
export type SupervisorEmitted =
  | ScheduleReplyEvent
  | { readonly type: 'schedule/changed'; readonly sessionId: string; readonly ids: readonly string[] };

/** The prefix of a Session actor's id under the supervisor. */
export const sessionActorId = (sessionId: string): string => `session:${sessionId}`;

/** How many Session groups the supervisor spreads Session actors over. */
export const SESSION_GROUPS = SHARDS;

/** The prefix of a Session group actor's id under the supervisor. */
export const SESSION_GROUP_PREFIX = 'sessions:';

export { sessionShard };

/** The id of the Session group actor that holds a Session's actor: `sessions:<n>`, n its {@link sessionShard}. */
export function sessionGroupId(sessionId: string): string {
  return `${SESSION_GROUP_PREFIX}${sessionShard(sessionId)}`;
}

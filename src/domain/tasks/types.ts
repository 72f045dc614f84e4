// The plain records the whole project speaks in: task records of the six kinds, the task row
// that binds a record to its Session, delivery receipts, and the normalised rules that compute
// targets. Everything here is data (JSON-compatible), never behaviour.

/** The six record kinds (docs/tasks.md). */
export type TaskKind = 'after' | 'at' | 'every' | 'daily' | 'weekly' | 'cron';

/** The four recurring kinds: delivered in batches, advanced after delivery. */
export type RecurringKind = 'every' | 'daily' | 'weekly' | 'cron';

interface RecordBase {
  /** Host-wide unique, never reused. */
  readonly id: string;
  /** Trimmed, 1–120 characters. */
  readonly title: string;
  /** Trimmed, non-empty. */
  readonly prompt: string;
  /** The committed next target, canonical UTC (`YYYY-MM-DDTHH:mm:ss.sssZ`). */
  readonly scheduledAt: string;
}

/** One-shot created from a delay. */
export interface AfterRecord extends RecordBase {
  readonly kind: 'after';
  readonly afterSeconds: number;
}

/** One-shot created from an absolute instant (only the instant is kept). */
export interface AtRecord extends RecordBase {
  readonly kind: 'at';
}

/** Fixed-rate rule; the grid is anchored at creation (`scheduledAt` + k × interval). */
export interface EveryRecord extends RecordBase {
  readonly kind: 'every';
  readonly everySeconds: number;
}

/** Local wall-clock time every day in an explicit zone. */
export interface DailyRecord extends RecordBase {
  readonly kind: 'daily';
  /** `HH:mm:ss` or `HH:mm:ss.sss` (fraction only when non-zero). */
  readonly time: string;
  readonly timeZone: string;
}

/** Local wall-clock time on listed ISO weekdays (1 = Monday … 7 = Sunday). */
export interface WeeklyRecord extends RecordBase {
  readonly kind: 'weekly';
  readonly time: string;
  readonly timeZone: string;
  /** Unique, ascending, 1–7. */
  readonly weekdays: readonly number[];
}

/** 5-field Vixie cron expression (canonical form, docs/selectors.md) in an explicit zone. */
export interface CronRecord extends RecordBase {
  readonly kind: 'cron';
  readonly expression: string;
  readonly timeZone: string;
}

export type ScheduleRecord = AfterRecord | AtRecord | EveryRecord | DailyRecord | WeeklyRecord | CronRecord;
export type OneShotRecord = AfterRecord | AtRecord;
export type RecurringRecord = EveryRecord | DailyRecord | WeeklyRecord | CronRecord;

export type TaskStatus = 'active' | 'inactive';

/** A delivery receipt: the occurrence, when the Session acknowledged it, and its message. */
export interface DeliveryReceipt {
  /** The occurrence that was delivered (canonical UTC). */
  readonly scheduledAt: string;
  /** When the Session's flush succeeded (canonical UTC). */
  readonly deliveredAt: string;
  readonly messageId: string;
  /** The prompt as sent (absent on receipts recorded before prompts were kept). */
  readonly prompt?: string;
  /** `"manual"` on the receipt of a run-now delivery (`remote.trigger`); absent otherwise. */
  readonly trigger?: 'manual';
  /**
   * Occurrences that fell due since the previous committed target and were coalesced into this
   * delivery without being delivered (an integer ≥ 1); absent when none were.
   */
  readonly missed?: number;
  /** The earliest coalesced occurrence (canonical UTC); present exactly when `missed` is. */
  readonly firstMissed?: string;
}

/** Saved delivery receipts of one task, oldest first. */
export interface DeliveryHistory {
  readonly records: readonly DeliveryReceipt[];
  /** True when earlier deliveries exist whose receipts were never saved. */
  readonly earlierRecordsUnavailable: boolean;
  /** True once an append pruned anything; absent means pruning is unconfirmed. */
  readonly earlierRecordsPruned?: boolean;
}

/** One stored task: Session binding, record, status, latest receipt and saved history. */
export interface TaskRow {
  readonly sessionId: string;
  readonly status: TaskStatus;
  readonly record: ScheduleRecord;
  readonly lastDelivery?: DeliveryReceipt;
  readonly deliveryHistory?: DeliveryHistory;
  /** When the task was paused (canonical UTC); a paused task is never delivered until resumed or run now. */
  readonly pausedAt?: string;
  /** Why the task was paused (1–500 characters); present only while it is paused, and only when the pause gave one. */
  readonly pauseNote?: string;
  /** When a run-now delivery was requested and not yet made (canonical UTC). */
  readonly triggeredAt?: string;
  /**
   * The failure status of the latest failed delivery attempts, as last written on the failure
   * path (docs/delivery.md); a committed delivery drops it.
   */
  readonly failure?: DeliveryFailure;
}

/** Where a delivery attempt failed. */
export type FailureStage = 'resolve' | 'followup' | 'flush' | 'commit';

/** The latest failed delivery attempts of an active task (cleared by a committed delivery). */
export interface DeliveryFailure {
  /** Consecutive failed attempts. */
  readonly attempts: number;
  /** When the latest attempt failed (canonical UTC). */
  readonly lastAt: string;
  readonly stage: FailureStage;
  /** The cause's message, at most `MAX_FAILURE_MESSAGE_LENGTH` characters (a longer one keeps its start and its end). */
  readonly message: string;
  /** When the next retry is due (canonical UTC); absent when none is scheduled. */
  readonly nextRetryAt?: string;
}

/** The timing part of a record, normalised; what recurrence and targets are computed from. */
export type Rule =
  | { readonly kind: 'after'; readonly afterSeconds: number }
  | { readonly kind: 'at'; readonly at: number }
  | { readonly kind: 'every'; readonly everySeconds: number }
  | { readonly kind: 'daily'; readonly time: string; readonly timeZone: string }
  | { readonly kind: 'weekly'; readonly time: string; readonly timeZone: string; readonly weekdays: readonly number[] }
  | { readonly kind: 'cron'; readonly expression: string; readonly timeZone: string };

export type WallClockRule = Extract<Rule, { kind: 'daily' | 'weekly' | 'cron' }>;

/** The model-facing view of an active task (docs/management.md). */
export type ScheduleView = ScheduleRecord & {
  readonly state: 'scheduled' | 'overdue' | 'paused';
  readonly deliveryMode: 'host';
  /** Present while the task is paused. */
  readonly pausedAt?: string;
  /** Why the task was paused; present while it is paused with a note. */
  readonly pauseNote?: string;
  /** Present while the latest delivery attempt has failed. */
  readonly failure?: DeliveryFailure;
};

/** The remote namespace's catalog entry: row without saved history. */
export interface CatalogEntry {
  readonly sessionId: string;
  readonly status: TaskStatus;
  readonly record: ScheduleRecord;
  readonly lastDelivery?: DeliveryReceipt;
  /** Present while the task is paused. */
  readonly pausedAt?: string;
  /** Why the task was paused; present while it is paused with a note. */
  readonly pauseNote?: string;
  /** Present while the latest delivery attempt has failed. */
  readonly failure?: DeliveryFailure;
}

export const isRecurringKind = (kind: TaskKind): kind is RecurringKind => kind !== 'after' && kind !== 'at';

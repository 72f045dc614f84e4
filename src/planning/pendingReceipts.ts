// Receipts a Session acknowledged whose row write failed, as a delivery-commit plan reads them: a
// retried write of them is told apart from a fresh delivery, and each keeps the `now` of the
// attempt that delivered it. The scheduler holds them (in memory only) and retries their write.
import type { DeliveredReminder, DeliveryOutcome } from '../../machines/events.ts';

/** One acknowledged reminder whose receipt is not written yet. */
export interface PendingCommit {
  readonly sessionId: string;
  readonly reminder: DeliveredReminder;
  /** The `now` of the attempt that delivered it: the row advances past it, as the first write would have. */
  readonly attemptNow: number;
}

/** The pending receipts a plan reads. */
export interface PendingReceipts {
  /** The pending receipt of a task, if any. */
  get(id: string): PendingCommit | undefined;
  /** True for an outcome built to retry the write of pending receipts. */
  isRetry(outcome: DeliveryOutcome): boolean;
}

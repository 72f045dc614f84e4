// Receipts waiting for their write (a reminder a Session acknowledged whose row write failed), as a
// retried write carries them. Their task actors hold them and report them with their wakes; the
// timer's owner builds the retried writes from those wakes, and the delivery-commit plan tells a
// retried write from a fresh delivery by the receipts it carries (`DeliveryOutcome.retried`).
import type { FlushedAttempt, WaitingReceipt } from '../../machines/events.ts';

/**
 * The retried writes of `receipts`, grouped by Session in the order their first receipt comes: one
 * outcome per Session, carrying its receipts as their wakes reported them.
 */
export function retriedWrites(receipts: Iterable<WaitingReceipt>, now: number): FlushedAttempt[] {
  const bySession = new Map<string, WaitingReceipt[]>();
  for (const receipt of receipts) {
    const list = bySession.get(receipt.sessionId);
    if (list === undefined) bySession.set(receipt.sessionId, [receipt]);
    else list.push(receipt);
  }
  return [...bySession].map(([sessionId, retried]) => ({
    sessionId,
    outcome: { now, delivered: [], failedIds: [], unrecordableIds: [], retried },
  }));
}

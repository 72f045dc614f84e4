// Receipts waiting to be written: reminders a Session acknowledged (its flush succeeded) whose
// row write failed. They are kept in memory only — a crash before one is written may deliver the
// reminder again (at-least-once) — and retried as writes, never as deliveries: while a task has
// one, it is not delivered. One entry per task; the outcome built to retry them says so
// (`retried`), so the slot that writes them tells a retried write from a fresh delivery.
import type { DeliveredReminder, DeliveryOutcome } from '../../machines/events.ts';
import type { PendingCommit, PendingReceipts } from '../planning/pendingReceipts.ts';

/** The pending receipts by task id, and whether each is being written right now. */
export class PendingCommits implements PendingReceipts {
  private readonly entries = new Map<string, { readonly commit: PendingCommit; inFlight: boolean }>();

  get size(): number {
    return this.entries.size;
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  /** The pending receipt of a task, if any. */
  get(id: string): PendingCommit | undefined {
    return this.entries.get(id)?.commit;
  }

  /** Keeps (or keeps again, after a failed retry) a receipt to write; it waits for its retry. */
  hold(commit: PendingCommit): void {
    this.entries.set(commit.reminder.id, { commit, inFlight: false });
  }

  /** Forgets a task's pending receipt (written, or its task is gone). */
  delete(id: string): void {
    this.entries.delete(id);
  }

  /** Ids whose receipts wait for a retry (not being written now). */
  waiting(): string[] {
    const ids: string[] = [];
    for (const [id, entry] of this.entries) if (!entry.inFlight) ids.push(id);
    return ids;
  }

  /**
   * Takes the waiting receipts of `ids` for a retried write, grouped by Session: one outcome per
   * Session, marked as a retry, its reminders as they were acknowledged.
   */
  take(ids: readonly string[], now: number): Array<{ readonly sessionId: string; readonly outcome: DeliveryOutcome }> {
    const bySession = new Map<string, DeliveredReminder[]>();
    for (const id of ids) {
      const entry = this.entries.get(id);
      if (entry === undefined || entry.inFlight) continue;
      entry.inFlight = true;
      const list = bySession.get(entry.commit.sessionId);
      if (list === undefined) bySession.set(entry.commit.sessionId, [entry.commit.reminder]);
      else list.push(entry.commit.reminder);
    }
    return [...bySession].map(([sessionId, delivered]) => {
      const outcome: DeliveryOutcome = { now, delivered, failedIds: [], unrecordableIds: [], retried: true };
      return { sessionId, outcome };
    });
  }

  /** True for an outcome built by {@link take}: a retried write of pending receipts. */
  isRetry(outcome: DeliveryOutcome): boolean {
    return outcome.retried === true;
  }
}

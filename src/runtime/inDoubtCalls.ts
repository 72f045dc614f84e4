// Idempotent calls whose write may or may not have landed: the storage answered
// `persistence_uncertain` (a connection lost during the commit, say). The table did not apply the
// batch, so a retry with the same `callId` would not find the call remembered and would plan the
// work again — a second task when the first write did land. Instead the retry commits the very
// batch the first attempt sent (the same ids, rows and remembered call), which writes the same
// thing whether or not the first one landed, and answers the first answer. The batch is reused
// only while no row it names has changed since; otherwise the retry is planned afresh.
import { type CallRef, callKey, type RememberedCall } from '../domain/tasks/rememberedCalls.ts';
import type { TaskRow } from '../domain/tasks/types.ts';
import type { WritePlan } from '../planning/slotPlan.ts';
import type { CommitBatch } from '../ports.ts';

/** How many in-doubt calls are kept at most; the oldest is dropped past it. */
const MAX_IN_DOUBT = 1_000;

interface InDoubt {
  readonly plan: WritePlan;
  readonly call: RememberedCall;
  /** The rows the batch names as the table held them when the write failed. */
  readonly before: ReadonlyArray<readonly [string, TaskRow | undefined]>;
}

/** The in-memory rows, as far as this needs them. */
interface Rows {
  get(id: string): TaskRow | undefined;
}

export class InDoubtCalls {
  private readonly calls = new Map<string, InDoubt>();

  /** Keeps the calls of a plan whose write came back uncertain. */
  note(plan: WritePlan, batch: CommitBatch, rows: Rows): void {
    const ids = [...batch.puts.map((row) => row.record.id), ...batch.deletes];
    const before = ids.map((id) => [id, rows.get(id)] as const);
    for (const call of batch.calls ?? []) {
      const key = callKey(call);
      this.calls.delete(key);
      this.calls.set(key, { plan, call, before });
      if (this.calls.size > MAX_IN_DOUBT) this.calls.delete(this.calls.keys().next().value as string);
    }
  }

  /**
   * The in-doubt call of this Session and `callId` with the plan that sent it, while none of its
   * rows has changed since; a call whose rows changed is forgotten.
   */
  get(ref: CallRef, rows: Rows): { plan: WritePlan; call: RememberedCall } | undefined {
    const key = callKey(ref);
    const entry = this.calls.get(key);
    if (entry === undefined) return undefined;
    if (entry.before.every(([id, row]) => rows.get(id) === row)) return entry;
    this.calls.delete(key);
    return undefined;
  }

  /** Forgets the calls a committed batch remembered. */
  settled(batch: CommitBatch): void {
    for (const call of batch.calls ?? []) this.calls.delete(callKey(call));
  }
}

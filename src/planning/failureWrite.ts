// The failure write (docs/delivery.md): once task actors took a failed attempt, one mailbox slot
// writes their failure status with their rows, so a restart still knows why each task is failing.
// It reads each actor's failure status as the slot runs (a later failure, a committed delivery or
// an edit since is what it finds) and writes only the rows whose stored status differs. Nothing
// else of the row changes, so no actor is told and the timer keeps each task where its actor put
// it. A write that fails changes nothing: the status stays in the actors, and the next failed
// attempt writes it again — the write itself is never retried. A task whose receipt's write
// failed (stage `commit`) is left out: storage has just refused a write, and the receipt's own
// retried write records the delivery (a successful failure write would retry it at once).
import { sameFailure } from '../domain/tasks/retry.ts';
import type { TaskRow } from '../domain/tasks/types.ts';
import type { SlotContext } from './mutations.ts';
import { type ReadyPlan, read, resolved, unwritten, write } from './slotPlan.ts';

/** The failure write of these tasks: their active rows with the failure status their actors hold now. */
export function planFailureWrite(ctx: SlotContext, ids: readonly string[]): ReadyPlan<null> {
  const puts: TaskRow[] = [];
  for (const id of new Set(ids)) {
    const row = ctx.table.get(id);
    if (row === undefined || row.status !== 'active') continue;
    const failure = ctx.failureOf?.(id);
    // A task whose actor holds no failure had a delivery committed since, which wrote its row.
    if (failure === undefined || failure.stage === 'commit' || sameFailure(row.failure, failure)) continue;
    puts.push({ ...row, failure });
  }
  if (puts.length === 0) return read(resolved(null));
  return write(
    { reply: resolved(null), batch: { puts, deletes: [] }, effects: [], changes: [], onWriteFailure: () => unwritten(resolved(null)) },
    { timing: 'keep' },
  );
}

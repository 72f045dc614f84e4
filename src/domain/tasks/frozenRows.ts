// A row the service commits is frozen, all the way down, before it is written: nothing changes a
// row once it is written, so a storage may keep that very object instead of a copy of its own, and
// the table, the task actors and the storage then hold one row between them. A row frozen here is
// recorded, so a storage tells a row no caller can change from one that merely looks frozen (any
// other row it still copies).
import type { TaskRow } from './types.ts';

const frozenRows = new WeakSet<object>();

/**
 * Freezes an object and everything reachable from it. An object already frozen is taken as frozen
 * all the way down: the parts a new row shares with an earlier one (its record, its kept receipts)
 * were frozen with that row.
 */
function freezeDeep(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const member of Object.values(value)) freezeDeep(member);
}

/** Freezes a row about to be committed (idempotent); answers the row. */
export function freezeRow(row: TaskRow): TaskRow {
  if (!frozenRows.has(row)) {
    freezeDeep(row);
    frozenRows.add(row);
  }
  return row;
}

/** True for a row {@link freezeRow} froze: no one can change it any more. */
export const isFrozenRow = (row: unknown): boolean => typeof row === 'object' && row !== null && frozenRows.has(row);

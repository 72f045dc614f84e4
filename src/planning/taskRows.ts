// What a slot plan reads of the committed domain: a Session's rows by id, the active rows, every
// row, the recorded time-zone data version and the remembered calls of idempotent requests. Read
// only: a plan changes no row and reserves no task id (the slot runner does, as it executes a
// create); the slot runner's in-memory table implements it.

import type { ScheduleCounts } from '../domain/reads/stateCounts.ts';
import type { CallRef, RememberedCall } from '../domain/tasks/rememberedCalls.ts';
import type { TaskRow } from '../domain/tasks/types.ts';

export interface TaskRows {
  /** The time-zone data version the domain records, if any. */
  readonly tzdata: string | undefined;
  /** The row with this id, active or inactive, of any Session. */
  get(id: string): TaskRow | undefined;
  /** The row with this id if it belongs to `sessionId`. */
  getInSession(sessionId: string, id: string): TaskRow | undefined;
  /** Active rows of a Session, in id order (a new array the caller may sort). */
  activeRows(sessionId: string): TaskRow[];
  /** How many active rows the Session has. */
  activeCount(sessionId: string): number;
  /** The counts per state at `now`: the whole schedule's, and the Session's when one is named. */
  counts(now: number, sessionId?: string): ScheduleCounts;
  /** Every row, in insertion order. */
  allRows(): Iterable<TaskRow>;
  /** Every active row. */
  activeRowsAll(): Iterable<TaskRow>;
  /** The remembered call of this Session and `callId`, if any (SPEC §15). */
  rememberedCall(ref: CallRef): RememberedCall | undefined;
  /** Every remembered call, oldest first. */
  rememberedCalls(): Iterable<RememberedCall>;
}

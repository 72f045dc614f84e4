// What the crash trials expect to find after a kill: every task the children's acknowledged
// calls left behind, with the fields their answers showed. Acknowledged creates and updates set
// a task's fields, acknowledged deletes and Session stops remove it; the calls in flight when the
// child died (up to eight) may or may not have landed, and their unique titles tell whether they
// did. An acknowledged call may act on a task that a call still in flight created (the mailbox ran
// that create first, the kill came before its answer was printed). After each checked kill or
// restart the expectation becomes exactly what the files or the restarted Host hold.
import { isDeepStrictEqual } from 'node:util';
import type { CatalogEntry } from '../../src/domain/tasks/types.ts';
import { titleOf, type WorkloadOp } from './hostCrashWorkload.ts';

/** Record fields an answer shows and a stored row holds. */
const RECORD_FIELDS = [
  'id',
  'kind',
  'title',
  'prompt',
  'scheduledAt',
  'afterSeconds',
  'everySeconds',
  'time',
  'timeZone',
  'weekdays',
  'expression',
];

/** Codes that must never answer a call while storage and Sessions work. */
const UNEXPECTED_CODES = new Set(['internal_error', 'persistence_uncertain', 'corrupt_schedule_log']);

/** A stored row or catalog entry, as far as the model looks at it. */
export type SeenRow = Pick<CatalogEntry, 'sessionId' | 'record'>;

/** A task as the acknowledged answers describe it. */
export interface ExpectedTask {
  readonly sessionId: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

/** The record fields of a view or a record. */
const fieldsOf = (value: object): Record<string, unknown> =>
  Object.fromEntries(RECORD_FIELDS.filter((key) => key in value).map((key) => [key, (value as Record<string, unknown>)[key]]));

const isOneShot = (kind: unknown): boolean => kind === 'after' || kind === 'at';

/** The result of checking rows against the expectation. */
export interface ModelCheck {
  readonly problems: string[];
  /** Whether the call in flight at the kill is found to have landed. */
  inFlightLanded: boolean;
}

/** The acknowledged state, carried from trial to trial. */
export class AcknowledgedModel {
  readonly tasks = new Map<string, ExpectedTask>();
  /** Ids removed by an acknowledged delete or stop (never to reappear). */
  readonly deleted = new Set<string>();
  /** Refusals seen, by code. */
  readonly refusals = new Map<string, number>();

  /**
   * Applies one acknowledged call; answers a problem when the answer itself is wrong. `pending`
   * are the calls made before it whose answers never came (in flight at the kill).
   */
  apply(op: WorkloadOp, result: unknown, pending: readonly WorkloadOp[] = []): string | undefined {
    const pendingCreate = (sessionId: string) => pending.some((p) => p.op === 'create' && p.sessionId === sessionId);
    const answer = (result ?? {}) as Record<string, unknown>;
    if (typeof answer.code === 'string') {
      this.refusals.set(answer.code, (this.refusals.get(answer.code) ?? 0) + 1);
      return UNEXPECTED_CODES.has(answer.code) ? `${op.op} answered ${JSON.stringify(answer)}` : undefined;
    }
    switch (op.op) {
      case 'create': {
        const id = String(answer.id);
        if (this.tasks.has(id) || this.deleted.has(id)) return `create answered the id ${id}, which was already used`;
        this.tasks.set(id, { sessionId: op.sessionId, fields: fieldsOf(answer) });
        return undefined;
      }
      case 'update':
      case 'remoteUpdate': {
        const known = this.tasks.get(op.id);
        if (known === undefined && !pendingCreate(op.sessionId))
          return `${op.op} of ${op.id} was acknowledged, but no such task is expected`;
        this.tasks.set(op.id, { sessionId: known?.sessionId ?? op.sessionId, fields: fieldsOf(answer) });
        return undefined;
      }
      case 'delete':
      case 'remoteDelete':
        if (answer.deleted === true) {
          if (!this.tasks.has(op.id) && !this.deleted.has(op.id) && !pendingCreate(op.sessionId))
            return `${op.op} of ${op.id} answered deleted, but no such task is expected`;
          this.tasks.delete(op.id);
          this.deleted.add(op.id);
        }
        return undefined;
      case 'stop': {
        const remaining = new Set((answer.remaining as string[] | undefined) ?? []);
        for (const [id, task] of this.tasks) {
          if (task.sessionId !== op.sessionId || remaining.has(id)) continue;
          this.tasks.delete(id);
          this.deleted.add(id);
        }
        // Rows unknown here were created by calls made after the stop (or still in flight): the
        // catalog read after the stop sees them.
        return undefined;
      }
    }
  }

  /** Compares rows with the expectation; `inFlight` are the calls attempted but never acknowledged. */
  check(rows: readonly SeenRow[], inFlight: readonly WorkloadOp[]): ModelCheck {
    const result: ModelCheck = { problems: [], inFlightLanded: false };
    const byId = new Map(rows.map((row) => [row.record.id, row] as const));
    for (const [id, task] of this.tasks) {
      const row = byId.get(id);
      if (row === undefined) {
        const removing = inFlight.some(
          (op) =>
            ((op.op === 'delete' || op.op === 'remoteDelete') && op.id === id) || (op.op === 'stop' && op.sessionId === task.sessionId),
        );
        if (removing) result.inFlightLanded = true;
        else result.problems.push(`${id} (${task.sessionId}, ${String(task.fields.title)}) was acknowledged but is missing`);
        continue;
      }
      if (row.sessionId !== task.sessionId) result.problems.push(`${id} moved from ${task.sessionId} to ${row.sessionId}`);
      const actual = fieldsOf(row.record);
      const differ = RECORD_FIELDS.filter((key) => key !== 'scheduledAt' && !isDeepStrictEqual(actual[key], task.fields[key]));
      if (differ.length > 0) {
        const updating = inFlight.some(
          (op) => (op.op === 'update' || op.op === 'remoteUpdate') && op.id === id && titleOf(op) === actual.title,
        );
        if (updating) result.inFlightLanded = true;
        else
          result.problems.push(
            `${id}: ${differ.map((k) => `${k} is ${JSON.stringify(actual[k])}, acknowledged ${JSON.stringify(task.fields[k])}`).join('; ')}`,
          );
        continue;
      }
      const stored = Date.parse(row.record.scheduledAt);
      const acknowledged = Date.parse(String(task.fields.scheduledAt));
      if (isOneShot(row.record.kind) ? stored !== acknowledged : stored < acknowledged)
        result.problems.push(`${id}: scheduledAt ${row.record.scheduledAt}, acknowledged ${String(task.fields.scheduledAt)}`);
    }
    for (const row of rows) {
      const id = row.record.id;
      if (this.tasks.has(id)) continue;
      if (this.deleted.has(id)) result.problems.push(`${id} was deleted (acknowledged) but is back`);
      else if (inFlight.some((op) => op.op === 'create' && op.sessionId === row.sessionId && titleOf(op) === row.record.title))
        result.inFlightLanded = true;
      else result.problems.push(`${id} (${row.sessionId}, ${row.record.title}) appeared without any call creating it`);
    }
    return result;
  }

  /** Makes the expectation what a checked kill or restart holds. */
  adopt(rows: readonly SeenRow[]): void {
    const present = new Set(rows.map((row) => row.record.id));
    for (const id of this.tasks.keys()) if (!present.has(id)) this.deleted.add(id);
    this.tasks.clear();
    for (const row of rows) this.tasks.set(row.record.id, { sessionId: row.sessionId, fields: fieldsOf(row.record) });
  }
}

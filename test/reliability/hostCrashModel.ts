// What the crash trials expect to find after a kill: every task the children's acknowledged
// calls left behind, with the fields their answers showed. Acknowledged creates and updates set
// a task's fields, acknowledged deletes and Session stops remove it; the one call in flight when
// the child died may or may not have landed, and its unique title tells whether it did. After
// each checked restart the expectation becomes exactly what the restarted Host holds.
import { isDeepStrictEqual } from 'node:util';
import type { CatalogEntry } from '../../src/domain/types.ts';
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

  /** Applies one acknowledged call; answers a problem when the answer itself is wrong. */
  apply(op: WorkloadOp, result: unknown): string | undefined {
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
        if (known === undefined) return `${op.op} of ${op.id} was acknowledged, but no such task is expected`;
        this.tasks.set(op.id, { sessionId: known.sessionId, fields: fieldsOf(answer) });
        return undefined;
      }
      case 'delete':
      case 'remoteDelete':
        if (answer.deleted === true) {
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
        const unknown = [...remaining].filter((id) => !this.tasks.has(id));
        return unknown.length === 0 ? undefined : `after a stop of ${op.sessionId}, unknown rows remain: ${unknown.join(', ')}`;
      }
    }
  }

  /** Compares rows with the expectation; `inFlight` is the call attempted but never acknowledged. */
  check(rows: readonly CatalogEntry[], inFlight: WorkloadOp | undefined): ModelCheck {
    const result: ModelCheck = { problems: [], inFlightLanded: false };
    const byId = new Map(rows.map((row) => [row.record.id, row] as const));
    const inFlightTitle = inFlight === undefined ? undefined : titleOf(inFlight);
    for (const [id, task] of this.tasks) {
      const row = byId.get(id);
      if (row === undefined) {
        const removing =
          (inFlight?.op === 'delete' || inFlight?.op === 'remoteDelete') && inFlight.id === id
            ? true
            : inFlight?.op === 'stop' && inFlight.sessionId === task.sessionId;
        if (removing) result.inFlightLanded = true;
        else result.problems.push(`${id} (${task.sessionId}, ${String(task.fields.title)}) was acknowledged but is missing`);
        continue;
      }
      if (row.sessionId !== task.sessionId) result.problems.push(`${id} moved from ${task.sessionId} to ${row.sessionId}`);
      const actual = fieldsOf(row.record);
      const differ = RECORD_FIELDS.filter((key) => key !== 'scheduledAt' && !isDeepStrictEqual(actual[key], task.fields[key]));
      if (differ.length > 0) {
        const updating = (inFlight?.op === 'update' || inFlight?.op === 'remoteUpdate') && inFlight.id === id;
        if (updating && actual.title === inFlightTitle) result.inFlightLanded = true;
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
      else if (inFlight?.op === 'create' && inFlight.sessionId === row.sessionId && row.record.title === inFlightTitle)
        result.inFlightLanded = true;
      else result.problems.push(`${id} (${row.sessionId}, ${row.record.title}) appeared without any call creating it`);
    }
    return result;
  }

  /** Makes the expectation what a checked restart holds. */
  adopt(rows: readonly CatalogEntry[]): void {
    const present = new Set(rows.map((row) => row.record.id));
    for (const id of this.tasks.keys()) if (!present.has(id)) this.deleted.add(id);
    this.tasks.clear();
    for (const row of rows) this.tasks.set(row.record.id, { sessionId: row.sessionId, fields: fieldsOf(row.record) });
  }
}

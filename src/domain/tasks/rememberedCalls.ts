// Idempotent calls (SPEC §15, docs/api.md): a mutating call may carry a `callId` — the model API's
// own tool-call id, or an HTTP `Idempotency-Key`. A call that succeeds is remembered with its
// Session, the operation, a canonical form of its arguments and its answer, in the same commit as
// the change it made; a later call with the same Session and `callId` answers from that record.
// Pure: what a remembered call is, how a `callId` is checked, how arguments are compared, and
// which remembered calls have outlived their retention.
import { describeValue, isPlainObject } from '../args/argShape.ts';
import { IDEMPOTENT_CALLS, ScheduleError } from '../errors.ts';
import { DAY_MS, instantMs } from '../time/instant.ts';

/** The longest `callId` accepted (model APIs' call ids are far shorter). */
export const MAX_CALL_ID_LENGTH = 256;

/** How long a remembered call is kept at least; it may be forgotten after. */
export const CALL_RETENTION_MS = DAY_MS;

/** The operations a `callId` makes idempotent: the mutating tools and remote methods (listed once, in the error catalog). */
export const IDEMPOTENT_OPERATIONS = IDEMPOTENT_CALLS;

export type IdempotentOperation = (typeof IDEMPOTENT_OPERATIONS)[number];

export const isIdempotentOperation = (name: string): name is IdempotentOperation =>
  (IDEMPOTENT_OPERATIONS as readonly string[]).includes(name);

/** Which remembered call: a `callId` belongs to its Session. */
export interface CallRef {
  readonly sessionId: string;
  readonly callId: string;
}

/** A call that succeeded, as it is stored beside the rows it changed. */
export interface RememberedCall extends CallRef {
  readonly operation: IdempotentOperation;
  /** The arguments in canonical form (`canonicalArguments`). */
  readonly arguments: string;
  /** The first answer, as JSON data. */
  readonly answer: unknown;
  /** When the call was made (canonical UTC instant). */
  readonly calledAt: string;
}

/**
 * A call option `callId`, checked.
 *
 * @throws ScheduleError `invalid_selector` for anything but a string of 1 to 256 characters.
 */
export function checkCallId(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_CALL_ID_LENGTH) {
    const got = typeof value === 'string' ? `a string of ${value.length} characters` : describeValue(value);
    throw new ScheduleError(
      'invalid_selector',
      `callId must be a string of 1 to ${MAX_CALL_ID_LENGTH} characters (the model API's id of this tool call); got ${got}.`,
    );
  }
  return value;
}

/** The key of a remembered call in a map: Session and `callId`, which no Session id can forge. */
export const callKey = (ref: CallRef): string => `${ref.sessionId.length}:${ref.sessionId}:${ref.callId}`;

/**
 * Arguments in canonical form: JSON with every object's members in code-point order of their
 * names, so two calls whose arguments differ only in member order compare equal. A value JSON
 * cannot spell (a function, say) is written as its `typeof`, so it can never equal real data.
 */
export function canonicalArguments(value: unknown): string {
  return JSON.stringify(canonicalValue(value, 0)) ?? 'undefined';
}

/** Deeper than any call's arguments go. */
const MAX_DEPTH = 64;

function canonicalValue(value: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH) return '…';
  if (Array.isArray(value)) return value.map((item) => canonicalValue(item, depth + 1));
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const member = value[key];
      if (member !== undefined) Object.defineProperty(out, key, { value: canonicalValue(member, depth + 1), enumerable: true });
    }
    return out;
  }
  if (typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') return `<${typeof value}>`;
  return value;
}

/** Whether an answer is a refusal (`{code, message}`, or a delete that deleted nothing): never remembered. */
export const isRefusal = (answer: unknown): boolean => isPlainObject(answer) && Object.hasOwn(answer, 'code');

/**
 * What a repeated call answers: the first answer when it repeats the same operation with the
 * same arguments.
 *
 * @throws ScheduleError `idempotency_conflict` when the `callId` was used for another call.
 */
export function repeatedAnswer(remembered: RememberedCall, operation: string, args: string): unknown {
  if (remembered.operation === operation && remembered.arguments === args) return remembered.answer;
  const other = remembered.operation === operation ? `${operation} with other arguments` : remembered.operation;
  throw new ScheduleError(
    'idempotency_conflict',
    `callId ${describeValue(remembered.callId)} was already used in this Session for ${other} at ${remembered.calledAt}; a retry must repeat that call exactly, and a new call needs a new callId.`,
  );
}

/**
 * The remembered calls (oldest first) that may be forgotten at `now`: those made more than
 * `CALL_RETENTION_MS` before it, at most `limit` of them, stopping at the first younger one.
 */
export function expiredCalls(oldestFirst: Iterable<RememberedCall>, now: number, limit: number): CallRef[] {
  const out: CallRef[] = [];
  for (const call of oldestFirst) {
    if (out.length >= limit || instantMs(call.calledAt) > now - CALL_RETENTION_MS) break;
    out.push({ sessionId: call.sessionId, callId: call.callId });
  }
  return out;
}

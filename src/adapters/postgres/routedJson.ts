// Routed calls as JSON: checking that a request or reply is JSON, and the stored reply — what the
// owner's `execute` answered, or the failure its caller gets — encoded and decoded.
import { ERROR_CODES, type ErrorCode, isScheduleError, ScheduleError } from '../../domain/errors.ts';
import { reasonOf } from './driver.ts';

/** A JSON value: what a routed request and its reply are. */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** Where `value` is not JSON (the path of the first such member), or undefined when it is. */
export function notJson(value: unknown, path: string, ancestors: Set<object>): string | undefined {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `${path} is ${String(value)}`;
  if (typeof value !== 'object') return `${path} is ${typeof value === 'undefined' ? 'undefined' : `a ${typeof value}`}`;
  if (ancestors.has(value)) return `${path} refers back to itself`;
  ancestors.add(value);
  try {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        if (!(i in value)) return `${path}[${i}] is a hole`;
        const found = notJson(value[i], `${path}[${i}]`, ancestors);
        if (found !== undefined) return found;
      }
      return undefined;
    }
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return `${path} is a ${value.constructor?.name ?? 'non-plain'} object`;
    if (Object.getOwnPropertySymbols(value).length > 0) return `${path} has symbol keys`;
    for (const [key, member] of Object.entries(value)) {
      const found = notJson(member, `${path}.${key}`, ancestors);
      if (found !== undefined) return found;
    }
    return undefined;
  } finally {
    ancestors.delete(value);
  }
}

/** The stored reply: what `execute` answered, or the failure a caller gets. */
type StoredReply =
  | { readonly ok: true; readonly value?: JsonValue }
  | { readonly ok: false; readonly error: { code: string; message: string } };

const failureOf = (code: ErrorCode, message: string): StoredReply => ({ ok: false, error: { code, message } });

/** The stored text of a reply: what `execute` answered, or the failure it threw. */
export function replyText(outcome: { value: unknown } | { error: unknown }): string {
  if ('error' in outcome) {
    const { error } = outcome;
    const failure = isScheduleError(error) ? failureOf(error.code, error.message) : failureOf('internal_error', reasonOf(error));
    return JSON.stringify(failure);
  }
  if (outcome.value === undefined) return JSON.stringify({ ok: true });
  const problem = notJson(outcome.value, 'the reply', new Set());
  if (problem !== undefined) return JSON.stringify(failureOf('internal_error', `The call ran, but its reply is not JSON: ${problem}.`));
  return JSON.stringify({ ok: true, value: outcome.value });
}

const isErrorCode = (code: unknown): code is ErrorCode => typeof code === 'string' && (ERROR_CODES as readonly string[]).includes(code);

/** What a stored reply answers: its value, or its failure thrown as a ScheduleError. */
export function replyOf(text: string): unknown {
  const reply = JSON.parse(text) as StoredReply;
  if (reply.ok) return reply.value;
  const code = isErrorCode(reply.error?.code) ? reply.error.code : 'internal_error';
  throw new ScheduleError(code, String(reply.error?.message ?? 'The routed call failed.'));
}

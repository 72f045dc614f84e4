// Remembered calls in the stored domain (docs/storage.md): the document's optional `calls` member
// and a journal line's `calls` and `forgetCalls`. A remembered call is
// `{"sessionId","callId","operation","arguments","answer","calledAt"}` — `arguments` the canonical
// JSON text of the call's arguments, `answer` the first answer as JSON, `calledAt` a canonical
// UTC instant; a forgotten one is named by `{"sessionId","callId"}`. Decoding is strict: any other
// member, a bad value or the same call twice is `corrupt_schedule_log`.

import { type CallRef, callKey, isIdempotentOperation, MAX_CALL_ID_LENGTH, type RememberedCall } from '../tasks/rememberedCalls.ts';
import { parseCanonicalInstant } from '../time/instant.ts';
import { MAX_SESSION_ID_LENGTH } from './row.ts';
import { corrupt, describe, isBoundedString, prefixed, readObject, type Where } from './strict.ts';

const CALL_FIELDS = ['sessionId', 'callId', 'operation', 'arguments', 'answer', 'calledAt'] as const;

/** The longest canonical arguments text kept (prompts and titles are far shorter). */
const MAX_ARGUMENTS_LENGTH = 1 << 20;

function decodeRef(value: unknown, where: Where, field: string, required: readonly string[]): Record<string, unknown> {
  const raw = readObject(value, where, field, required);
  if (!isBoundedString(raw.sessionId, MAX_SESSION_ID_LENGTH)) {
    corrupt(
      where,
      prefixed(field, 'sessionId'),
      `must be a Session id (1 to ${MAX_SESSION_ID_LENGTH} characters), found ${describe(raw.sessionId)}`,
    );
  }
  if (!isBoundedString(raw.callId, MAX_CALL_ID_LENGTH)) {
    corrupt(where, prefixed(field, 'callId'), `must be a call id (1 to ${MAX_CALL_ID_LENGTH} characters), found ${describe(raw.callId)}`);
  }
  return raw;
}

/** Decodes one remembered call. */
export function decodeRememberedCall(value: unknown, where: Where, field: string): RememberedCall {
  const raw = decodeRef(value, where, field, CALL_FIELDS);
  const operation = raw.operation;
  if (typeof operation !== 'string' || !isIdempotentOperation(operation)) {
    corrupt(where, prefixed(field, 'operation'), `must name a mutating tool or remote method, found ${describe(operation)}`);
  }
  if (!isBoundedString(raw.arguments, MAX_ARGUMENTS_LENGTH)) {
    corrupt(where, prefixed(field, 'arguments'), `must be the call's arguments as canonical JSON text, found ${describe(raw.arguments)}`);
  }
  if (typeof raw.answer !== 'object' || raw.answer === null) {
    corrupt(where, prefixed(field, 'answer'), `must be the call's answer (a JSON object or array), found ${describe(raw.answer)}`);
  }
  if (typeof raw.calledAt !== 'string' || parseCanonicalInstant(raw.calledAt) === null) {
    corrupt(where, prefixed(field, 'calledAt'), `must be a canonical UTC instant, found ${describe(raw.calledAt)}`);
  }
  return {
    sessionId: raw.sessionId as string,
    callId: raw.callId as string,
    operation,
    arguments: raw.arguments,
    answer: raw.answer,
    calledAt: raw.calledAt,
  };
}

/** Decodes a list of remembered calls (`member` names it); the same Session and call id twice is corrupt. */
export function decodeRememberedCalls(value: unknown, where: Where, member: string): RememberedCall[] {
  if (!Array.isArray(value)) corrupt(where, member, `must be an array of remembered calls, found ${describe(value)}`);
  const seen = new Set<string>();
  return value.map((item: unknown, index: number) => {
    const call = decodeRememberedCall(item, where, `${member}[${index}]`);
    const key = callKey(call);
    if (seen.has(key)) corrupt(where, `${member}[${index}]`, 'repeats the Session and callId of an earlier remembered call');
    seen.add(key);
    return call;
  });
}

/** Decodes a list of forgotten calls (`member` names it). */
export function decodeCallRefs(value: unknown, where: Where, member: string): CallRef[] {
  if (!Array.isArray(value)) corrupt(where, member, `must be an array of {sessionId, callId}, found ${describe(value)}`);
  return value.map((item: unknown, index: number) => {
    const raw = decodeRef(item, where, `${member}[${index}]`, ['sessionId', 'callId']);
    return { sessionId: raw.sessionId as string, callId: raw.callId as string };
  });
}

/** A remembered call as a JSON object, members in the stored order. */
export const encodeRememberedCall = (call: RememberedCall): Record<string, unknown> => ({
  sessionId: call.sessionId,
  callId: call.callId,
  operation: call.operation,
  arguments: call.arguments,
  answer: call.answer,
  calledAt: call.calledAt,
});

/** A forgotten call as a JSON object. */
export const encodeCallRef = (ref: CallRef): Record<string, unknown> => ({ sessionId: ref.sessionId, callId: ref.callId });

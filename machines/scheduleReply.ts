// The `schedule.reply` event, typed by the operation of the call it answers. A call names its
// operation by what it is — a model tool's name, `remote.<method>`, `archive.<method>`, the names
// docs/errors.md lists its codes under — and its reply echoes it as `op`, so a Host narrows a reply
// by `op` and then by `ok` (SPEC §10): `ok: true` carries what the promise service resolves with
// as `value` — the operation's answer, or a refusal written for the model (`{code, message}`, which
// `isRefusal` tells apart without a cast) — and `ok: false` what it would reject with, as
// `error: {code, message}` with a code of docs/errors.md. Also here: the operation of a call, and
// the reply body every layer settles a call with. Plain data, no XState type: the main entry
// re-exports these.
import { type ErrorCode, isScheduleError } from '../src/domain/errors.ts';
import type { TaskNotDeleted, ToolFailure, ToolResults } from '../src/domain/reads/replies.ts';
import type { ArchiveMethod, ArchiveReplies, RemoteMethod, RemoteReplies, ReplyValue, ScheduleCall } from './replies.ts';

/** The operation a call names: a model tool by name, a remote method, an archive admission call. */
export type ScheduleOp = keyof ToolResults | `remote.${RemoteMethod}` | `archive.${ArchiveMethod}`;

/** The operation of a call (`callOp`): its tool name, `remote.<method>` or `archive.<method>`. */
export type OpOf<C extends ScheduleCall> = C extends { readonly kind: 'tool'; readonly name: infer N }
  ? N
  : C extends { readonly kind: 'remote' | 'archive'; readonly method: infer M extends string }
    ? `${C['kind']}.${M}`
    : never;

/** Every answer of an operation, refusals included (what the promise service resolves with). */
type AnswerOf<O extends ScheduleOp> = O extends keyof ToolResults
  ? ToolResults[O]
  : O extends `remote.${infer M extends RemoteMethod}`
    ? RemoteReplies[M]
    : O extends `archive.${infer M extends ArchiveMethod}`
      ? ArchiveReplies[M]
      : never;

/** An answer that refuses the call: `{code, message}`, or a delete that deleted nothing. */
export type Refusal = ToolFailure | TaskNotDeleted;

/** What a successful reply to operation `O` carries as `value`: its answer without the refusals. */
export type OpValue<O extends ScheduleOp> = Exclude<AnswerOf<O>, Refusal>;

/** Why a call did not succeed, as plain data: a stable code (docs/errors.md) and a message. */
export interface ScheduleReplyError {
  readonly code: ErrorCode;
  readonly message: string;
}

/**
 * How a call settles, without its request id and operation: what a slot plans for its caller, what
 * the slot runner and a cluster member answer, and what the `schedule.reply` event carries.
 * `R` is the value a successful call answers.
 */
export type ScheduleReplyBody<R extends ReplyValue = ReplyValue> =
  | { readonly ok: true; readonly value: R }
  | { readonly ok: false; readonly error: ScheduleReplyError; readonly thrown: unknown };

/** The reply to a call of operation `O` that succeeded. */
export interface ScheduleReplySuccess<O extends string> {
  readonly type: 'schedule.reply';
  readonly requestId: string;
  readonly op: O;
  readonly ok: true;
  /** The answer, or a refusal written for the model (`isRefusal`). */
  readonly value: O extends ScheduleOp ? AnswerOf<O> : never;
}

/** The reply to a call of operation `O` that was refused or could not run. */
export interface ScheduleReplyFailure<O extends string> {
  readonly type: 'schedule.reply';
  readonly requestId: string;
  readonly op: O;
  readonly ok: false;
  readonly error: ScheduleReplyError;
  /** What the call threw (the promise service rejects with it). */
  readonly thrown: unknown;
}

/**
 * The supervisor's answer to a `schedule.call` of operation `O` (every operation by default):
 * narrowed by `op`, then by `ok` and `isRefusal`, its `value` is that operation's answer.
 */
export type ScheduleReply<O extends ScheduleOp = ScheduleOp> = {
  readonly [K in O]: ScheduleReplySuccess<K> | ScheduleReplyFailure<K>;
}[O];

/**
 * Any `schedule.reply`: the reply of every operation, and the refusal of a tool call whose name
 * (known only at run time) is no tool, whose `op` is that name.
 */
export type ScheduleReplyEvent = ScheduleReply | ScheduleReplyFailure<string>;

/** The operation a call names (its reply's `op`). */
export function callOp<C extends ScheduleCall>(call: C): OpOf<C>;
export function callOp(call: ScheduleCall): string {
  return call.kind === 'tool' ? call.name : `${call.kind}.${call.method}`;
}

/**
 * Whether an answer is a refusal written for the model (`{code, message}`, or a delete that
 * deleted nothing): only those have a `code` member (src/domain/reads/replies.ts). Narrows a reply's
 * `value` to the operation's successful answer when false.
 */
export function isRefusal<V>(value: V): value is Extract<V, Refusal> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'code' in value;
}

/** `error` for what a call that could not run threw: a ScheduleError's code, else `internal_error`. */
function thrownError(thrown: unknown): ScheduleReplyError {
  if (isScheduleError(thrown)) return { code: thrown.code, message: thrown.message };
  return { code: 'internal_error', message: thrown instanceof Error ? thrown.message : String(thrown) };
}

/**
 * The reply of a call that could not run (`ok: false`): it rejects with what it threw — wrapped in
 * an Error when it is not one (an abort reason, say) — and `error` names its code.
 */
export function rejected(thrown: unknown): ScheduleReplyBody<never> {
  const error = thrown instanceof Error ? thrown : new Error(String(thrown), { cause: thrown });
  return { ok: false, error: thrownError(error), thrown: error };
}

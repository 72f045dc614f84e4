// The calls a Host can hand to another Host: every call that names one Session (a tool call, the
// Session-scoped remote methods, the archive admissions), as JSON that can travel through the
// database, and how one runs against the schedule service of the shard that holds the Session.
// An answer travels as `{ value }`; a call that rejects (an archive admission's ScheduleError, a
// malformed Session id) travels as `{ error: { code, message } }` and rejects again at the caller.

import type { RemoteCallOptions } from '../domain/args/remoteRequests.ts';
import { ERROR_CODES, type ErrorCode, isScheduleError, ScheduleError } from '../domain/errors.ts';
import type { ScheduleService } from '../service.ts';

/** One call that names a Session, as JSON. */
export type RoutedCall =
  | { readonly kind: 'tool'; readonly sessionId: string; readonly name: string; readonly args: unknown; readonly callId?: string }
  | { readonly kind: `remote.${SessionRemoteMethod}`; readonly sessionId: string; readonly request: unknown; readonly callId?: string }
  | { readonly kind: 'archive.activity'; readonly sessionId: string }
  | { readonly kind: 'archive.stop'; readonly sessionId: string };

/** The remote methods that name one Session. */
export type SessionRemoteMethod = 'get' | 'list' | 'history' | 'update' | 'delete' | 'pause' | 'resume' | 'trigger' | 'reanchor' | 'bulk';

/** How a routed call ended, as JSON. */
export type RoutedAnswer = { readonly value: unknown } | { readonly error: { readonly code: string; readonly message: string } };

/** The answer of a call as it travels: its value, or the error it rejected with. */
/** The options of a routed call: its idempotency key, when it has one. */
const optionsOf = (call: { readonly callId?: string }): { callId: string } | undefined =>
  call.callId === undefined ? undefined : { callId: call.callId };

export async function answerOf(run: () => Promise<unknown>): Promise<RoutedAnswer> {
  try {
    return { value: await run() };
  } catch (error) {
    if (isScheduleError(error)) return { error: { code: error.code, message: error.message } };
    return { error: { code: 'internal_error', message: error instanceof Error ? error.message : String(error) } };
  }
}

/** What the caller gets back: the value, or the error rethrown as a ScheduleError. */
export function settle(answer: RoutedAnswer): unknown {
  if ('error' in answer) {
    const { code, message } = answer.error;
    throw new ScheduleError(isKnownCode(code) ? code : 'internal_error', message);
  }
  return answer.value;
}

const isKnownCode = (code: string): code is ErrorCode => (ERROR_CODES as readonly string[]).includes(code);

/**
 * Runs a call against the service of the shard holding its Session; `signal` (a tool call's, when
 * it runs at the Host it was made at) aborts it while it waits in that service's mailbox.
 */
export function runRouted(service: ScheduleService, call: RoutedCall, signal?: AbortSignal): Promise<unknown> {
  const remote = service.remote as unknown as Record<
    SessionRemoteMethod,
    (request: unknown, options?: RemoteCallOptions) => Promise<unknown>
  >;
  switch (call.kind) {
    case 'tool':
      return service.callTool(call.sessionId, call.name, call.args, { ...optionsOf(call), ...(signal === undefined ? {} : { signal }) });
    case 'archive.activity':
      return service.archive.sessionActivity(call.sessionId);
    case 'archive.stop':
      return service.archive.sessionStop(call.sessionId);
    default:
      return remote[call.kind.slice('remote.'.length) as SessionRemoteMethod](call.request, optionsOf(call));
  }
}

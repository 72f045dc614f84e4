// The calls a Host sends the supervisor (`schedule.call`) and the answers they settle with, typed
// end to end: each call is one member of `ScheduleCall` per kind — a model tool by name, a remote
// method, an archive admission call — and `ReplyOf` maps a call to the value its promise resolves
// with, the one place where that correspondence is written down (scheduleReply.ts types the
// `schedule.reply` event from it). The values themselves are plain data declared in src/domain.
// A request is checked at run time (a Host may pass parsed JSON on), so a call's request stays
// `unknown` here; the answer of a refused request is part of the value. No XState type is read
// here, so the main entry can name these types without loading XState's declarations.

import type { CatalogPage } from '../src/domain/reads/catalogPage.ts';
import type { DriftPage } from '../src/domain/reads/driftPage.ts';
import type { HistoryPage } from '../src/domain/reads/historyPage.ts';
import type {
  ArchiveActivity,
  BulkReanchorResult,
  DeleteResult,
  ToolFailure,
  ToolResult,
  ToolResults,
} from '../src/domain/reads/replies.ts';
import type { ScheduleCounts } from '../src/domain/reads/stateCounts.ts';
import type { BulkResult } from '../src/domain/tasks/bulk.ts';
import type { CatalogEntry, ScheduleView } from '../src/domain/tasks/types.ts';
import type { DriftReport } from '../src/domain/time/drift.ts';

/**
 * What each remote method answers, refusals included. `catalog`, `drift` and `reanchor` answer
 * by the form of their request (see `ReplyOf`); this is the answer of any form.
 */
export interface RemoteReplies {
  /** No request: every task; paging options: one page. */
  readonly catalog: CatalogEntry[] | CatalogPage | ToolFailure;
  readonly get: CatalogEntry | ToolFailure;
  readonly list: ScheduleView[] | ToolFailure;
  readonly history: HistoryPage | ToolFailure;
  readonly update: ScheduleView | ToolFailure;
  /** A refused delete is a `TaskNotDeleted`. */
  readonly delete: DeleteResult;
  readonly pause: ScheduleView | ToolFailure;
  readonly resume: ScheduleView | ToolFailure;
  readonly trigger: ScheduleView | ToolFailure;
  /** No request: every drifted task; `{limit}`: the first of them and their total (a `DriftPage`). */
  readonly drift: DriftReport | DriftPage | ToolFailure;
  /** `{sessionId, id}`: the task's view; the bulk forms: the moved tasks' views. */
  readonly reanchor: ScheduleView | BulkReanchorResult | ToolFailure;
  /** The counts per state: the whole schedule's, and a Session's when the request names one. */
  readonly counts: ScheduleCounts | ToolFailure;
  /** Pause, resume or run now many tasks, in batches. */
  readonly bulk: BulkResult | ToolFailure;
}

/** The remote namespace's methods. */
export type RemoteMethod = keyof RemoteReplies;

/** What each archive admission call resolves with (it rejects on failure). */
export interface ArchiveReplies {
  readonly sessionActivity: ArchiveActivity[];
  readonly sessionStop: undefined;
}

/** The archive admission calls. */
export type ArchiveMethod = keyof ArchiveReplies;

/** A model tool call in the calling Session; `N` is the tool's name (any string: an unknown name is refused). */
export interface ToolCall<N extends string = string> {
  readonly kind: 'tool';
  readonly sessionId: string;
  readonly name: N;
  readonly args: unknown;
  readonly signal?: AbortSignal;
  /** The model API's id of this tool call: a mutating call repeated with it answers the first answer (SPEC §15). */
  readonly callId?: string;
}

/** A remote call, one member per method; the request is checked when the call runs. */
export type RemoteCall<M extends RemoteMethod = RemoteMethod> = {
  readonly [K in M]: {
    readonly kind: 'remote';
    readonly method: K;
    readonly request?: unknown;
    /** An idempotency key: a mutating method repeated with it in the same Session answers the first answer (SPEC §15). */
    readonly callId?: string;
  };
}[M];

/** An archive admission call, one member per method. */
export type ArchiveCall<M extends ArchiveMethod = ArchiveMethod> = {
  readonly [K in M]: { readonly kind: 'archive'; readonly method: K; readonly sessionId: string };
}[M];

/** A call of each model tool by its name, and of a tool whose name is only known at run time. */
export type ToolCalls = { readonly [N in keyof ToolResults]: ToolCall<N> }[keyof ToolResults] | ToolCall;

/** A call a Host sends the supervisor in a `schedule.call` event. */
export type ScheduleCall = ToolCalls | RemoteCall | ArchiveCall;

/** A remote request's form as the compiler sees it: none (absent or undefined), an object, or either. */
type RequestForm<C> = C extends { readonly kind: 'remote'; readonly request?: undefined }
  ? 'none'
  : C extends { readonly request: object }
    ? 'object'
    : 'any';

type CatalogReply<C> = {
  readonly none: CatalogEntry[];
  readonly object: CatalogPage | ToolFailure;
  readonly any: RemoteReplies['catalog'];
}[RequestForm<C>];

type DriftReply<C> = {
  readonly none: DriftReport;
  readonly object: DriftPage | ToolFailure;
  readonly any: RemoteReplies['drift'];
}[RequestForm<C>];

type ReanchorReply<C> = C extends { readonly request: { readonly id: unknown } }
  ? ScheduleView | ToolFailure
  : C extends { readonly request: { readonly ids: unknown } | { readonly all: unknown } }
    ? BulkReanchorResult | ToolFailure
    : RemoteReplies['reanchor'];

type RemoteReplyOf<C extends RemoteCall> = C extends { readonly method: 'catalog' }
  ? CatalogReply<C>
  : C extends { readonly method: 'drift' }
    ? DriftReply<C>
    : C extends { readonly method: 'reanchor' }
      ? ReanchorReply<C>
      : RemoteReplies[C['method']];

/**
 * What a call's promise resolves with (`createScheduleService`), refusals included: a tool's
 * answer per name (`ToolResult`), a remote method's per method and request form, an archive
 * call's per method. The `schedule.reply` of an XState Host carries it split: a success as
 * `value`, a refusal as `error` (`ScheduleReply`).
 */
export type ReplyOf<C extends ScheduleCall> =
  C extends ToolCall<infer N>
    ? ToolResult<N>
    : C extends RemoteCall
      ? RemoteReplyOf<C>
      : C extends ArchiveCall
        ? ArchiveReplies[C['method']]
        : never;

/**
 * Every value a reply can carry: the answer of any call, and `null`, the answer of an internal
 * command (a delivery commit), which no caller receives.
 */
export type ReplyValue = ReplyOf<ScheduleCall> | null;

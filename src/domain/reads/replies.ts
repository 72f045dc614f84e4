// The answers of the schedule's calls, as plain JSON data: a refusal `{code, message}`, a delete
// result, what each model tool answers, a bulk re-anchor and archive admission's activity. Only a
// refusal (and a delete that deleted nothing, which also says `deleted: false`) has a `code`
// member, so `'code' in result` tells a failure from a success. Types only.
import type { ErrorCode, Failure } from '../errors.ts';
import type { ScheduleView } from '../tasks/types.ts';

/**
 * A refused call: a stable code (see `ERROR_CODES`) and a message written for a model, saying
 * what was wrong and what is accepted. Tools and the remote namespace answer it; they do not
 * throw it.
 */
export type ToolFailure = Failure;

/** A delete that removed the task and its history. */
export interface TaskDeleted {
  readonly id: string;
  readonly deleted: true;
}

/**
 * A delete that removed nothing: `schedule_not_found` (no such task in that Session), or
 * `persistence_uncertain` (the write could not be confirmed; read the tasks again before
 * retrying). `id` is the id asked for — always present for `schedule_delete`; the remote
 * namespace leaves out an id that is not a string of at most 128 characters.
 */
export interface TaskNotDeleted {
  readonly id?: string;
  readonly deleted: false;
  readonly code: ErrorCode;
  readonly message?: string;
}

/** The answer of `schedule_delete` and `remote.delete` for a well-formed request. */
export type DeleteResult = TaskDeleted | TaskNotDeleted;

/** What `callTool` resolves to, per tool. */
export interface ToolResults {
  /** The new task's view, or a refusal. */
  readonly schedule_create: ScheduleView | ToolFailure;
  /** The calling Session's active tasks, soonest first, or a refusal. */
  readonly schedule_list: ScheduleView[] | ToolFailure;
  /** The task's view after the update (unchanged for a no-op), or a refusal. */
  readonly schedule_update: ScheduleView | ToolFailure;
  /** The delete result, or a refusal of malformed arguments. */
  readonly schedule_delete: DeleteResult | ToolFailure;
}

/**
 * What `callTool(sessionId, name, …)` resolves to: the tool's own answer for a tool name, and any
 * tool's answer for a name only known at run time (a name that is not a tool answers
 * `invalid_selector`).
 */
export type ToolResult<N extends string = keyof ToolResults> = N extends keyof ToolResults
  ? ToolResults[N]
  : ToolResults[keyof ToolResults];

/** The answer to a bulk re-anchor: the views of the tasks whose target moved. */
export interface BulkReanchorResult {
  readonly reanchored: ScheduleView[];
}

/** One entry of archive admission's `sessionActivity`: the Session's active tasks. */
export interface ArchiveActivity {
  readonly family: 'schedule';
  readonly items: Array<{ readonly id: string; readonly label: string }>;
}

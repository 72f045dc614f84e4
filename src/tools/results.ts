// What each model tool answers, as types a Host's code can use without casts: a task's view, a
// list of views, a delete result, or a refusal `{code, message}`. Only a refusal (and a delete
// that deleted nothing, which also says `deleted: false`) has a `code` member, so
// `'code' in result` tells a failure from a success. The types are declared with the other
// answers in src/domain/replies.ts, where the planning layer and the machines' reply map read them.
export type {
  DeleteResult,
  TaskDeleted,
  TaskNotDeleted,
  ToolFailure,
  ToolResult,
  ToolResults,
} from '../domain/replies.ts';

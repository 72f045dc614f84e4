// The public API of agent-schedule (docs/api.md). Every export is listed by name.

// The calls an XState Host sends the supervisor and their replies, typed by operation (plain data;
// the actors themselves are in `agent-schedule/machines`)
export type {
  ArchiveCall,
  ArchiveMethod,
  RemoteCall,
  RemoteMethod,
  ReplyOf,
  ScheduleCall,
  ToolCall,
} from '../machines/replies.ts';
export {
  callOp,
  isRefusal,
  type OpOf,
  type OpValue,
  type Refusal,
  type ScheduleOp,
  type ScheduleReply,
  type ScheduleReplyError,
  type ScheduleReplyEvent,
  type ScheduleReplyFailure,
  type ScheduleReplySuccess,
} from '../machines/scheduleReply.ts';
// Storage adapters
export { type JsonFileStorageOptions, jsonFileStorage } from './adapters/jsonFileStorage.ts';
export { memoryStorage } from './adapters/memoryStorage.ts';
export { systemClock } from './adapters/systemClock.ts';
export { MAX_PROMPT_LENGTH, MAX_TITLE_LENGTH } from './domain/args/fields.ts';
export type {
  BulkReanchorRequest,
  BulkRequest,
  HistoryRequest,
  PauseRequest,
  RemoteUpdateRequest,
  SessionRef,
  TaskRef,
} from './domain/args/remoteRequests.ts';
export { parseTimingSelector } from './domain/args/selectors.ts';
// Records, views and errors
export { ERROR_CODES, type ErrorCode, type Failure, INTERNAL_ERROR_MESSAGE, ScheduleError } from './domain/errors.ts';
export type { CatalogFilter, CatalogPage, CatalogRequest, CatalogSort, CatalogStatusFilter } from './domain/reads/catalogPage.ts';
export type { DriftPage, DriftRequest } from './domain/reads/driftPage.ts';
export type { HistoryPage } from './domain/reads/historyPage.ts';
export { type PreviewOccurrence, previewOccurrences } from './domain/reads/preview.ts';
// What each tool answers (`callTool` is typed per tool name)
export type {
  ArchiveActivity,
  BulkReanchorResult,
  DeleteResult,
  TaskDeleted,
  TaskNotDeleted,
  ToolFailure,
  ToolResult,
  ToolResults,
} from './domain/reads/replies.ts';
export type { CountsRequest, ScheduleCounts, StateCounts } from './domain/reads/stateCounts.ts';
// The service's configuration and the inspection events its `inspect` option takes
export type { ScheduleConfig, ScheduleInspectionEvent } from './domain/serviceOptions.ts';
// The remote namespace's requests and archive admission's answer
export type { BulkAction, BulkResult, BulkSkip } from './domain/tasks/bulk.ts';
export { ruleFromRecord } from './domain/tasks/records.ts';
// The service
/** The shard (0–255) of a Session in a cluster: FNV-1a of its id modulo 256 (docs/cluster.md). */
export { shardOf } from './domain/tasks/sessionShard.ts';
export type {
  AfterRecord,
  AtRecord,
  CatalogEntry,
  CronRecord,
  DailyRecord,
  DeliveryHistory,
  DeliveryReceipt,
  EveryRecord,
  FailureStage,
  Rule,
  ScheduleRecord,
  ScheduleView,
  TaskKind,
  TaskRow,
  TaskStatus,
  WeeklyRecord,
} from './domain/tasks/types.ts';
// Time rules, usable on their own
export { canonicalizeCron, isCanonicalCron } from './domain/time/cron/index.ts';
export type { DriftEntry, DriftReport } from './domain/time/drift.ts';
export { firstTarget, latestOccurrence, nextTargetAfter } from './domain/time/recurrence.ts';
export { canonicalTimeZone } from './domain/time/timeZone.ts';
// The live inspector (the service's `inspect` option)
export {
  createScheduleInspector,
  type InspectedActor,
  type InspectedActorKind,
  type InspectedActorStatus,
  type InspectedSession,
  type InspectorEntry,
  type InspectorEntryType,
  type InspectorFilter,
  type InspectorQuery,
  type InspectorSummary,
  type InspectorUpdate,
  type InspectorView,
  parseInspectorSnapshot,
  type ScheduleInspector,
  type ScheduleInspectorOptions,
} from './inspector/index.ts';
export type { InspectedStateValue } from './inspector/types.ts';
// The legacy session-local log (docs/storage.md)
export {
  decodeScheduleChange,
  foldScheduleChanges,
  type LegacyRecreateWarning,
  type LegacyScheduleChange,
  type LegacyScheduleRecord,
  legacyRecreateWarning,
} from './legacy/index.ts';
// Ports a Host implements or passes in
export type {
  Clock,
  ClusterMembership,
  CommitBatch,
  FollowupLease,
  FollowupMessage,
  FollowupMeta,
  HeldRows,
  JoinedCluster,
  Logger,
  MemberPorts,
  OpenRequest,
  ScheduleAgent,
  ScheduleHealth,
  ScheduleLevels,
  ScheduleMetrics,
  ScheduleStorage,
  SessionController,
  StoredDomain,
  StoredRest,
  UnreadCounts,
} from './ports.ts';
export type { RetryPolicy } from './runtime/config.ts';
export type { LegacyNote } from './runtime/legacyNote.ts';
// The supervisor as actor logic, for a Host built on XState
export type { ScheduleSupervisorInput } from './runtime/supervisorInput.ts';
export {
  createScheduleService,
  type ScheduleChange,
  type ScheduleCluster,
  type ScheduleService,
  type ScheduleServiceOptions,
} from './service.ts';
// The model tools, and their shapes for each model API
export { stripNulls, type ToolCallOptions } from './tools/callFormat.ts';
export { TOOL_DEFINITIONS, type ToolDefinition, type ToolName } from './tools/definitions.ts';
export {
  type AnthropicToolDefinition,
  type McpToolDefinition,
  type OpenAIChatToolDefinition,
  type OpenAIFunctionToolDefinition,
  type OpenAIStrictFunctionToolDefinition,
  TOOL_FORMATS,
  type ToolDefinitionsByFormat,
  type ToolFormat,
  toolDefinitionsFor,
} from './tools/formats.ts';
export type { JsonObjectSchema, JsonSchema, JsonSchemaType, JsonStrictObjectSchema } from './tools/jsonSchema.ts';

// The public API of agent-schedule (SPEC §9). Every export is listed by name.

// Storage adapters
export { type JsonFileStorageOptions, jsonFileStorage } from './adapters/jsonFileStorage.ts';
export { memoryStorage } from './adapters/memoryStorage.ts';
export { systemClock } from './adapters/systemClock.ts';
// Time rules, usable on their own
export { canonicalizeCron, isCanonicalCron } from './domain/cron/index.ts';
// Records, views and errors
export { ERROR_CODES, type ErrorCode, type Failure, INTERNAL_ERROR_MESSAGE, ScheduleError } from './domain/errors.ts';
export type { HistoryPage } from './domain/historyPage.ts';
export { type PreviewOccurrence, previewOccurrences } from './domain/preview.ts';
export { ruleFromRecord } from './domain/records.ts';
export { firstTarget, latestOccurrence, nextTargetAfter } from './domain/recurrence.ts';
export { parseTimingSelector } from './domain/selectors.ts';
export { canonicalTimeZone } from './domain/timeZone.ts';
export type {
  AfterRecord,
  AtRecord,
  CatalogEntry,
  CronRecord,
  DailyRecord,
  DeliveryHistory,
  DeliveryReceipt,
  EveryRecord,
  Rule,
  ScheduleRecord,
  ScheduleView,
  TaskKind,
  TaskRow,
  TaskStatus,
  WeeklyRecord,
} from './domain/types.ts';
// The live inspector (the service's `inspect` option)
export {
  createScheduleInspector,
  type InspectedActor,
  type InspectedActorKind,
  type InspectedActorStatus,
  type InspectorEntry,
  type InspectorEntryType,
  type InspectorFilter,
  type InspectorUpdate,
  type InspectorView,
  parseInspectorSnapshot,
  type ScheduleInspector,
  type ScheduleInspectorOptions,
} from './inspector/index.ts';

// The legacy session-local log (SPEC §7)
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
  CommitBatch,
  FollowupMessage,
  FollowupMeta,
  Logger,
  ScheduleAgent,
  ScheduleStorage,
  SessionController,
  StoredDomain,
} from './ports.ts';
export type { RetryPolicy, ScheduleConfig } from './runtime/config.ts';
export type { LegacyNote } from './runtime/legacyNote.ts';
// The service
export { createScheduleService, type ScheduleChange, type ScheduleService, type ScheduleServiceOptions } from './service.ts';
export { TOOL_DEFINITIONS, type ToolDefinition, type ToolName } from './tools/definitions.ts';

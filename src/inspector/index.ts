// The live inspector of a schedule service's actor system (plugged into the `inspect` option).
export {
  createScheduleInspector,
  parseInspectorSnapshot,
  type ScheduleInspector,
  type ScheduleInspectorOptions,
} from './scheduleInspector.ts';
export type {
  InspectedActor,
  InspectedActorKind,
  InspectedActorStatus,
  InspectedPassiveTask,
  InspectedSession,
  InspectorEntry,
  InspectorEntryType,
  InspectorFilter,
  InspectorQuery,
  InspectorSummary,
  InspectorUpdate,
  InspectorView,
} from './types.ts';

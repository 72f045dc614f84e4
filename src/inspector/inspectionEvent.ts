// The inspection event the service's `inspect` option and the inspector's `inspect` take: a plain
// type declared in src/domain/serviceOptions.ts (below the ports, which name it), with the reason
// it is not XState's own `InspectionEvent`.
export type { ScheduleInspectionEvent } from '../domain/serviceOptions.ts';

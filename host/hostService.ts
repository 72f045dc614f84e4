// What the Host's HTTP application uses of the schedule: the tool calls, the remote namespace the
// page and the API answer, the change subscription, idling (the test clock) and the close. A
// `ScheduleService` (one process on its data folder) has all of it, and so does a cluster Host's
// `ClusterService` (one of several processes on one PostgreSQL schema), so the routes never
// need to know which of the two runs below them.
import type { ClusterService } from '../src/adapters/postgres/index.ts';
import type { ScheduleService } from '../src/index.ts';

/** The remote methods the Host answers. */
export type HostRemoteMethod =
  | 'catalog'
  | 'get'
  | 'list'
  | 'history'
  | 'update'
  | 'delete'
  | 'pause'
  | 'resume'
  | 'trigger'
  | 'drift'
  | 'reanchor'
  | 'counts'
  | 'bulk';

/** The schedule as the Host's routes use it; see the file comment. */
export interface HostService {
  readonly toolDefinitions: ScheduleService['toolDefinitions'];
  callTool: ClusterService['callTool'];
  readonly remote: Pick<ScheduleService['remote'], HostRemoteMethod>;
  subscribe: ScheduleService['subscribe'];
  whenIdle(): Promise<void>;
  /** What the readiness probe reads. */
  health: ScheduleService['health'];
  close(): Promise<void>;
}

// Both implementations satisfy it (checked here, where a change to either would show).
type Satisfies<T extends HostService> = T;
export type CheckedImplementations = [Satisfies<ScheduleService>, Satisfies<ClusterService>];

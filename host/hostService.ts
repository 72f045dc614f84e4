// What the reference Host uses of the schedule: everything the console shows (its
// `ConsoleService`), plus idling (the test clock) and the close. A `ScheduleService` (one process
// on its data folder) has all of it, and so does a cluster Host's `ClusterService` (one of several
// processes on one PostgreSQL schema), so the Host never needs to know which of the two runs.
import type { ClusterService } from '../src/adapters/postgres/index.ts';
import type { ConsoleService } from '../src/console/options.ts';
import type { ScheduleService } from '../src/index.ts';

/** The schedule as the Host uses it; see the file comment. */
export interface HostService extends ConsoleService {
  whenIdle(): Promise<void>;
  close(): Promise<void>;
}

// Both implementations satisfy it (checked here, where a change to either would show).
type Satisfies<T extends HostService> = T;
export type CheckedImplementations = [Satisfies<ScheduleService>, Satisfies<ClusterService>];

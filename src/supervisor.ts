// The public `scheduleSupervisor`: the runtime's supervisor with its default ports — the JSON file
// storage at `DEFAULT_STORAGE_PATH` and the system clock. Assembled here, above both the runtime
// and the adapters, so the runtime imports no adapter.
import { jsonFileStorage } from './adapters/jsonFileStorage.ts';
import { systemClock } from './adapters/systemClock.ts';
import { supervisorWith } from './runtime/scheduleSupervisor.ts';

export type { ScheduleSupervisorInput } from './runtime/supervisorInput.ts';

/** Where the supervisor keeps its schedule when its input names no storage. */
export const DEFAULT_STORAGE_PATH = './data/schedule.json';

/**
 * The scheduler as actor logic: input `ScheduleSupervisorInput`; accepts `schedule.call` and
 * `schedule.close`; answers `schedule.reply` (to `replyTo`, else the parent) and tells the parent
 * `schedule.changed` after each committed change. A domain that cannot be opened ends it with
 * status `error` (a `ScheduleError` with code `corrupt_schedule_log`). Over a storage many Hosts
 * share (`postgresStorage({ …, cluster })`) it is this Host's member of the cluster, speaking the
 * same protocol; its calls run concurrently, so match replies by `requestId`.
 */
export const scheduleSupervisor = supervisorWith({
  storage: () => jsonFileStorage({ path: DEFAULT_STORAGE_PATH }),
  clock: systemClock,
});

export type ScheduleSupervisor = typeof scheduleSupervisor;

// The Host's scheduling stack without any server: the schedule service over the JSON domain in
// `<dataDir>/schedule.json`, with file-backed Sessions under `<dataDir>/sessions/`, and a live
// inspector of its actor system (timestamped by the stack's clock). The HTTP Host is built on
// it, and a process that only schedules and delivers (a worker, a crash test) can open it alone.
import { join } from 'node:path';
import {
  type Clock,
  createScheduleInspector,
  createScheduleService,
  jsonFileStorage,
  type Logger,
  type ScheduleConfig,
  type ScheduleInspector,
  type ScheduleService,
  systemClock,
} from '../src/index.ts';
import { createFileSessions, type FileSessions } from './sessions/fileSessions.ts';

export interface HostStackOptions {
  /** Holds `schedule.json` and the `sessions/` folder. */
  readonly dataDir: string;
  /** Default: the system clock. */
  readonly clock?: Clock;
  readonly logger?: Logger;
  readonly config?: ScheduleConfig;
  /** Whether the demo agent answers delivered reminders (default true). */
  readonly demoAgent?: boolean;
  /** How many recent entries the inspector keeps (default {@link INSPECTOR_CAPACITY}). */
  readonly inspectorCapacity?: number;
}

/** How many recent inspector entries the stack keeps by default. */
export const INSPECTOR_CAPACITY = 500;

/** A running service with its Sessions. */
export interface HostStack {
  readonly service: ScheduleService;
  readonly sessions: FileSessions;
  readonly clock: Clock;
  /** The live actor tree and recent events of the service's actor system. */
  readonly inspector: ScheduleInspector;
  /** Closes the service (draining accepted work), waits for the Sessions' flushes, then detaches the inspector. */
  close(): Promise<void>;
}

/** Opens the domain and starts the service. Rejects with `corrupt_schedule_log` on a bad domain. */
export async function openHostStack(options: HostStackOptions): Promise<HostStack> {
  const clock = options.clock ?? systemClock;
  const sessions = createFileSessions({
    dir: join(options.dataDir, 'sessions'),
    now: () => clock.now(),
    ...(options.demoAgent === undefined ? {} : { demoAgent: options.demoAgent }),
  });
  const { logger } = options;
  const inspector = createScheduleInspector({
    capacity: options.inspectorCapacity ?? INSPECTOR_CAPACITY,
    now: () => clock.now(),
    ...(logger === undefined ? {} : { onError: (error: unknown) => logger.error('The inspector failed.', { cause: error }) }),
  });
  const service = await createScheduleService({
    sessions,
    storage: jsonFileStorage({ path: join(options.dataDir, 'schedule.json') }),
    clock,
    inspect: inspector.inspect,
    ...(options.config === undefined ? {} : { config: options.config }),
    ...(logger === undefined ? {} : { logger }),
  });
  return {
    service,
    sessions,
    clock,
    inspector,
    async close() {
      await service.close();
      await sessions.close();
      inspector.detach();
    },
  };
}

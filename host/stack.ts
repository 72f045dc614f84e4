// The Host's scheduling stack without any server: the schedule service over the JSON domain in
// `<dataDir>/schedule.json`, with file-backed Sessions under `<dataDir>/sessions/`. The HTTP
// Host is built on it, and a process that only schedules and delivers (a worker, a crash test)
// can open it alone.
import { join } from 'node:path';
import {
  type Clock,
  createScheduleService,
  jsonFileStorage,
  type Logger,
  type ScheduleConfig,
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
}

/** A running service with its Sessions. */
export interface HostStack {
  readonly service: ScheduleService;
  readonly sessions: FileSessions;
  readonly clock: Clock;
  /** Closes the service (draining accepted work), then waits for the Sessions' flushes. */
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
  const service = await createScheduleService({
    sessions,
    storage: jsonFileStorage({ path: join(options.dataDir, 'schedule.json') }),
    clock,
    ...(options.config === undefined ? {} : { config: options.config }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
  return {
    service,
    sessions,
    clock,
    async close() {
      await service.close();
      await sessions.close();
    },
  };
}

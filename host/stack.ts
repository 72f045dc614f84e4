// The Host's scheduling stack without any server: the schedule service over the JSON domain in
// `<dataDir>/schedule.json`, with file-backed Sessions under `<dataDir>/sessions/`, and a live
// inspector of its actor system (timestamped by the stack's clock) and, when `inspectWs` names a
// WebSocket server, the same inspection events sent to the Stately Inspector there as well
// (statelyInspector.ts). With `database`, the schedule and the Sessions' transcripts are kept in
// PostgreSQL instead (database.ts) and the data folder is not used: the same service, over a
// storage the replicas share (`postgresStorage({ …, cluster })`), is then one member of a cluster
// under its Host id — it holds its share of the 256 shards, runs a schedule service per shard held
// (their actors all in the one inspector, keyed by shard) and answers for every Session, so
// several replicas on one schema deliver each reminder once. The service reports to the stack's metrics (the console's prom-client
// metrics), which the console's `GET /metrics` serves. The HTTP Host is built on it, and a process that only schedules and
// delivers (a worker, a crash test) can open it alone. The storage (file mode only) and the
// Session controller the service sees can be wrapped (instrumentation, fault injection) without
// rebuilding the stack.
import { join } from 'node:path';
import { type ConsoleMetrics, createConsoleMetrics } from '../src/console/index.ts';
import { postgresStorage } from '../src/entries/postgres.ts';
import {
  type Clock,
  createScheduleInspector,
  createScheduleService,
  type JsonFileStorageOptions,
  jsonFileStorage,
  type Logger,
  type ScheduleCluster,
  type ScheduleConfig,
  type ScheduleInspectionEvent,
  type ScheduleInspector,
  type ScheduleService,
  type ScheduleStorage,
  type SessionController,
  systemClock,
} from '../src/index.ts';
import { type HostDatabaseOptions, openHostDatabase } from './database.ts';
import { createFileSessions, type FileSessions } from './sessions/fileSessions.ts';
import { createStatelyFeed, type StatelyFeed } from './statelyInspector.ts';

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
  /** Options of the JSON storage besides its path (compaction thresholds, the file-system seam). */
  readonly storage?: Omit<JsonFileStorageOptions, 'path'>;
  /** Wrappers around what the service is given, for instrumentation or fault injection (the storage's in file mode only). */
  readonly wrap?: HostStackWrappers;
  /** A WebSocket server (`ws://host:port`) that gets the inspection events for the Stately Inspector; off unless given. */
  readonly inspectWs?: string;
  /** Keep the schedule and the transcripts in PostgreSQL instead of `dataDir`. */
  readonly database?: HostDatabaseOptions;
}

/** Each receives the stack's own port and returns the one the service uses instead. */
export interface HostStackWrappers {
  readonly storage?: (storage: ScheduleStorage) => ScheduleStorage;
  readonly sessions?: (sessions: SessionController) => SessionController;
}

/** How many recent inspector entries the stack keeps by default. */
export const INSPECTOR_CAPACITY = 500;

/** A running service with its Sessions: a `ScheduleService` on files, a cluster member's on PostgreSQL. */
export interface HostStack {
  readonly service: ScheduleService;
  /** This replica as a member of its cluster (database mode only). */
  readonly cluster: ScheduleCluster | undefined;
  readonly sessions: FileSessions;
  readonly clock: Clock;
  /** The live actor tree and recent events of the service's actor system. */
  readonly inspector: ScheduleInspector;
  /** The feed to the Stately Inspector, when `inspectWs` was given. */
  readonly stately: StatelyFeed | undefined;
  /** What the service reports, as `GET /metrics` serves it. */
  readonly metrics: ConsoleMetrics;
  /** Closes the service (draining accepted work), waits for the Sessions' flushes, then detaches the inspectors. */
  close(): Promise<void>;
}

/** Opens the domain and starts the service. Rejects with `corrupt_schedule_log` on a bad domain. */
export async function openHostStack(options: HostStackOptions): Promise<HostStack> {
  const clock = options.clock ?? systemClock;
  const sessionOptions = { now: () => clock.now(), ...(options.demoAgent === undefined ? {} : { demoAgent: options.demoAgent }) };
  const database = options.database === undefined ? undefined : await openHostDatabase(options.database, sessionOptions);
  const sessions = database?.sessions ?? createFileSessions({ dir: join(options.dataDir, 'sessions'), ...sessionOptions });
  const { logger } = options;
  const inspector = createScheduleInspector({
    capacity: options.inspectorCapacity ?? INSPECTOR_CAPACITY,
    now: () => clock.now(),
    ...(logger === undefined ? {} : { onError: (error: unknown) => logger.error('The inspector failed.', { cause: error }) }),
  });
  const url = options.inspectWs;
  const stately =
    url === undefined
      ? undefined
      : createStatelyFeed({
          url,
          ...(logger === undefined
            ? {}
            : { onDisconnect: (reason: string) => logger.warn(`The Stately Inspector at ${url} is not reachable (${reason}); retrying.`) }),
        });
  const inspect =
    stately === undefined
      ? inspector.inspect
      : (event: ScheduleInspectionEvent) => {
          inspector.inspect(event);
          stately.inspect(event);
        };
  const serviceSessions = options.wrap?.sessions?.(sessions) ?? sessions;
  let service: ScheduleService | undefined;
  // Read at each scrape; nothing is shown before the service is open.
  const metrics = await createConsoleMetrics(async () => {
    const counts = await service?.remote.counts();
    return counts === undefined || 'code' in counts ? undefined : counts.all;
  });
  try {
    const { leaseMs, listen, autoStart, keeperPool } = options.database ?? {};
    const storage =
      database === undefined
        ? jsonFileStorage({ ...options.storage, path: join(options.dataDir, 'schedule.json') })
        : postgresStorage({
            pool: database.pool,
            schema: database.schema,
            cluster: {
              hostId: database.hostId,
              ...(leaseMs === undefined ? {} : { leaseMs }),
              ...(listen === undefined ? {} : { routing: { listen } }),
              ...(autoStart === undefined ? {} : { autoStart }),
              ...(keeperPool === undefined ? {} : { keeperPool }),
            },
          });
    service = await createScheduleService({
      sessions: serviceSessions,
      storage: database === undefined ? (options.wrap?.storage?.(storage) ?? storage) : storage,
      clock,
      inspect,
      metrics: metrics.port,
      ...(options.config === undefined ? {} : { config: options.config }),
      ...(logger === undefined ? {} : { logger }),
    });
  } catch (error) {
    await stately?.close();
    await database?.close();
    throw error;
  }
  const opened = service;
  return {
    service: opened,
    cluster: opened.cluster,
    sessions,
    clock,
    inspector,
    stately,
    metrics,
    async close() {
      await opened.close();
      await sessions.close();
      await database?.close();
      inspector.detach();
      await stately?.close();
    },
  };
}

// `npm start`: runs the reference Host with settings from the environment and logs one JSON line
// per event on stdout (host/logger.ts: LOG_LEVEL, LOG_FORMAT=pretty): its start with its URL and
// where it keeps the schedule and the transcripts (`storage`: files under DATA_DIR, or postgresql
// with the database URL, password hidden, the schema and this replica's `hostId` when
// DATABASE_URL is set), each
// delivery, each failed attempt, its stop. It shuts down cleanly on SIGINT or SIGTERM (server
// stopped, streams ended, connections still open after the shutdown grace closed, accepted work
// drained, service closed, exit 0). Should the shutdown still not have finished
// `STOP_MARGIN_MS` after the grace, it says so and exits 1. A second signal during shutdown exits
// at once with 130; bad settings (a malformed variable, a wildcard HOST without ALLOWED_HOSTS)
// exit 2; a Host that cannot start (port in use, a damaged schedule.json) says why and exits 1.
import { DEFAULT_SCHEMA } from '../src/entries/postgres.ts';
import { createHost, type Host } from './createHost.ts';
import { redactDatabaseUrl } from './database.ts';
import { hostOptionsFromEnv } from './env.ts';
import { createHostLog, type HostLogSettings, libraryLogger, logSettingsFromEnv, shortCause } from './logger.ts';

/** How long past the shutdown grace the process waits for the service to close. */
const STOP_MARGIN_MS = 5_000;

let settings: HostLogSettings;
try {
  settings = logSettingsFromEnv(process.env);
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(2);
}
const log = createHostLog(settings);

let options: ReturnType<typeof hostOptionsFromEnv>;
try {
  options = hostOptionsFromEnv(process.env);
} catch (error) {
  log.fatal({ stage: 'settings' }, error instanceof Error ? error.message : String(error));
  process.exit(2);
}

let host: Host;
try {
  host = await createHost({ ...options, logger: libraryLogger(log) });
} catch (error) {
  const code = (error as { code?: unknown }).code;
  log.fatal(
    { stage: 'start', cause: shortCause(error), ...(typeof code === 'string' ? { code } : {}) },
    `The Host did not start${typeof code === 'string' ? ` (${code})` : ''}: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(1);
}
let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) process.exit(130);
  stopping = true;
  log.info({ signal }, `${signal}: shutting down`);
  const boundMs = host.limits.shutdownGraceMs + STOP_MARGIN_MS;
  setTimeout(() => {
    log.error({ stage: 'stop', boundMs }, `The Host did not shut down within ${boundMs} ms; exiting.`);
    process.exit(1);
  }, boundMs);
  try {
    await host.close();
    log.info({ signal }, 'stopped');
    process.exit(0);
  } catch (error) {
    log.error({ stage: 'stop', cause: shortCause(error) }, 'The Host did not shut down cleanly.');
    process.exit(1);
  }
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
// The start is announced only once the signals are handled: a signal sent on reading it stops cleanly.
const { database } = options;
const where =
  database === undefined
    ? { storage: 'files', dataDir: options.dataDir }
    : {
        storage: 'postgresql',
        database: redactDatabaseUrl(database.url ?? ''),
        schema: database.schema ?? DEFAULT_SCHEMA,
        hostId: host.cluster?.hostId ?? '',
      };
log.info(
  {
    url: host.url,
    ...where,
    pid: process.pid,
    ...(options.testClock === undefined ? {} : { testClock: options.testClock }),
  },
  `agent-schedule Host listening on ${host.url} (${
    where.storage === 'files'
      ? `data: ${options.dataDir}`
      : `schedule and transcripts in PostgreSQL: ${where.database}, schema ${where.schema}, as Host ${where.hostId}`
  })`,
);
if (options.testClock !== undefined)
  log.warn({ testClock: options.testClock }, `TEST CLOCK MODE: time starts at ${options.testClock}; POST /api/test/clock moves it.`);

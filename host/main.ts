// `npm start`: runs the reference Host with settings from the environment, prints its URL, and
// shuts down cleanly on SIGINT or SIGTERM (server stopped, streams ended, connections still open
// after the shutdown grace closed, accepted work drained, service closed, exit 0). Should the
// shutdown still not have finished `STOP_MARGIN_MS` after the grace, it says so and exits 1. A
// second signal during shutdown exits at once with 130; bad settings (a malformed variable, a
// wildcard HOST without ALLOWED_HOSTS) exit 2; a Host that cannot start (port in use, a damaged
// schedule.json) says why and exits 1.
import { createHost, type Host } from './createHost.ts';
import { hostOptionsFromEnv } from './env.ts';

/** How long past the shutdown grace the process waits for the service to close. */
const STOP_MARGIN_MS = 5_000;

let options: ReturnType<typeof hostOptionsFromEnv>;
try {
  options = hostOptionsFromEnv(process.env);
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(2);
}

let host: Host;
try {
  host = await createHost(options);
} catch (error) {
  const code = (error as { code?: unknown }).code;
  console.error(
    `The Host did not start${typeof code === 'string' ? ` (${code})` : ''}: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(1);
}
console.log(`agent-schedule Host listening on ${host.url}`);
console.log(`data: ${options.dataDir}`);
if (options.testClock !== undefined) console.log(`TEST CLOCK MODE: time starts at ${options.testClock}; POST /api/test/clock moves it.`);

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) process.exit(130);
  stopping = true;
  console.log(`${signal}: shutting down`);
  const boundMs = host.limits.shutdownGraceMs + STOP_MARGIN_MS;
  setTimeout(() => {
    console.error(`The Host did not shut down within ${boundMs} ms; exiting.`);
    process.exit(1);
  }, boundMs);
  try {
    await host.close();
    console.log('stopped');
    process.exit(0);
  } catch (error) {
    console.error('The Host did not shut down cleanly.', error);
    process.exit(1);
  }
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));

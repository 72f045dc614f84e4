// The Host's settings from the environment of `npm start`: PORT, HOST, DATA_DIR and the opt-in
// SCHEDULE_TEST_CLOCK. Anything malformed is refused with a message naming the variable.
import { resolve } from 'node:path';
import { DEFAULT_HOSTNAME, DEFAULT_PORT, type HostOptions } from './createHost.ts';

/** Where `npm start` keeps its data unless DATA_DIR says otherwise. */
export const DEFAULT_DATA_DIR = './data';

/** Host options from environment variables; throws an Error naming a malformed variable. */
export function hostOptionsFromEnv(env: NodeJS.ProcessEnv): HostOptions {
  const portText = env.PORT ?? String(DEFAULT_PORT);
  const port = /^\d{1,5}$/.test(portText) ? Number(portText) : Number.NaN;
  if (!(port >= 0 && port <= 65_535)) throw new Error(`PORT must be a port number from 0 to 65535; got ${JSON.stringify(portText)}.`);
  const testClock = env.SCHEDULE_TEST_CLOCK || undefined;
  if (testClock !== undefined && !Number.isFinite(Date.parse(testClock)))
    throw new Error(`SCHEDULE_TEST_CLOCK must be an RFC 3339 instant such as 2030-01-01T09:00:00Z; got ${JSON.stringify(testClock)}.`);
  return {
    dataDir: resolve(env.DATA_DIR || DEFAULT_DATA_DIR),
    port,
    hostname: env.HOST || DEFAULT_HOSTNAME,
    ...(testClock === undefined ? {} : { testClock }),
  };
}

// The reference Host's console: `createConsole` over the Host's stack — its inspector, clock,
// metrics and file (or PostgreSQL) transcripts — answering to the names the Host is reached by,
// and, in test-clock mode, with the test clock's route. Whoever reaches the Host may use it: what
// is exposed is decided by the bind address (loopback by default) and the allow-list, so the
// Host's `authorize` lets every request in.

import { type Console, createConsole, isWildcardAddress, LOOPBACK_NAMES, parseAllowedHost } from '../src/console/index.ts';
import type { Logger } from '../src/index.ts';
import type { ManualClock } from '../src/testing.ts';
import type { HostLimits } from './limits.ts';
import type { HostStack } from './stack.ts';
import { testClockRoute } from './testClockRoute.ts';

export interface HostConsoleOptions {
  readonly stack: HostStack;
  readonly logger: Logger;
  readonly limits: HostLimits;
  /** The `Host` header values answered ({@link hostAllowedHosts}); default: the loopback names on any port. */
  readonly allowedHosts?: readonly string[];
  /** Present only in test-clock mode. */
  readonly testClock?: ManualClock;
}

/**
 * The names a Host listening on `hostname:port` answers to, each on that port unless its entry
 * names another: its loopback names, its bound address and the entries of `allowedHosts`.
 * Throws when `hostname` binds every interface and no allowed host is given, or an entry is
 * malformed.
 */
export function hostAllowedHosts(hostname: string, port: number, allowedHosts: readonly string[] = []): string[] {
  if (isWildcardAddress(hostname) && allowedHosts.length === 0)
    throw new Error(
      `A Host bound to ${hostname} (every interface) needs an allow-list of the host names clients use to reach it (allowedHosts; ALLOWED_HOSTS for npm start).`,
    );
  const bound = isWildcardAddress(hostname) ? [] : [hostname.includes(':') && !hostname.startsWith('[') ? `[${hostname}]` : hostname];
  return [
    ...[...LOOPBACK_NAMES, ...bound].map((name) => `${name.toLowerCase()}:${port}`),
    ...allowedHosts.map((entry) => {
      const allowed = parseAllowedHost(entry);
      return `${allowed.name}:${allowed.port ?? port}`;
    }),
  ];
}

/** The console over `options.stack`. */
export function createHostConsole(options: HostConsoleOptions): Console {
  const { stack, testClock } = options;
  // The test clock's route tells the page through the console it belongs to.
  let hostConsole: Console | undefined;
  hostConsole = createConsole({
    service: stack.service,
    inspector: stack.inspector,
    clock: stack.clock,
    logger: options.logger,
    limits: options.limits,
    metrics: stack.metrics,
    transcripts: stack.sessions,
    authorize: () => true,
    ...(options.allowedHosts === undefined ? {} : { allowedHosts: options.allowedHosts }),
    status: () => ({ testClock: testClock !== undefined }),
    ...(testClock === undefined ? {} : { routes: [testClockRoute(stack.service, testClock, (event) => hostConsole?.emit(event))] }),
  });
  return hostConsole;
}

// `agent-schedule/console`: the HTTP API (tools, the remote namespace, catalog, history, preview,
// drift, pause/resume/run now, bulk actions, the live event stream, the inspector feed, metrics
// and health probes) and the web task page, as one Web-standard handler a Host mounts in its own
// server (docs/console.md). Its server-side libraries are optional peer dependencies: `hono`,
// loaded with this entry (importing it without hono fails naming the package to install), and
// `prom-client`, loaded only by `createConsoleMetrics`.
import type { ConsoleMetrics, CountsSource } from './metrics.ts';
import type { Console, ConsoleOptions } from './options.ts';

/** Loads `load`, which needs the package `name`; a missing package is reported by name. */
async function withPeer<T>(name: string, purpose: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    const message = error instanceof Error ? error.message : '';
    if ((code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && message.includes(`'${name}'`))
      throw new Error(`agent-schedule/console needs the package ${name} for ${purpose}: install it with npm install ${name}`, {
        cause: error,
      });
    throw error;
  }
}

const implementation = await withPeer('hono', 'its HTTP routes', () => import('./console.ts'));

/** Builds the console over a running service: `console.fetch(request)` answers every request it serves. */
export const createConsole: (options: ConsoleOptions) => Console = implementation.createConsole;

/**
 * Prometheus metrics for `GET /metrics` (needs the package prom-client): give `port` to the
 * service (`createScheduleService({ metrics: port })`) and the result to `createConsole({ metrics })`.
 * `counts` (such as `() => service.remote.counts()` read as `all`) adds the tasks per state.
 */
export async function createConsoleMetrics(counts?: CountsSource): Promise<ConsoleMetrics> {
  const { prometheusMetrics } = await withPeer('prom-client', 'the metrics', () => import('./metrics.ts'));
  return prometheusMetrics(counts);
}

export {
  type AllowedHost,
  isWildcardAddress,
  LOOPBACK_NAMES,
  parseAllowedHost,
  parseAllowedHosts,
} from './allowedHosts.ts';
export { clientAddressOf, isLoopbackAddress, loopbackOnly } from './authorize.ts';
export { type ConsoleLimits, consoleLimits, DEFAULT_CONSOLE_LIMITS } from './limits.ts';
export type { ConsoleMetrics, CountsSource } from './metrics.ts';
export { type NodeRequestListener, nodeListener, type WebHandler } from './nodeListener.ts';
export type {
  ClusterTopology,
  Console,
  ConsoleAuthorize,
  ConsoleEvent,
  ConsoleMetricsSource,
  ConsoleOptions,
  ConsoleRemoteMethod,
  ConsoleRoute,
  ConsoleService,
  ConsoleTranscripts,
  StreamStats,
  TranscriptAppend,
} from './options.ts';
export { isConsoleSessionId, SESSION_ID_RULE } from './sessionId.ts';

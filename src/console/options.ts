// What `createConsole` takes: the schedule it shows (a `ScheduleService`, on one Host or a member
// of a cluster, or a `ClusterService`: the routes use only what they all have), and what only the Host knows —
// its inspector, its clock, who may call (`authorize`), the names it is reached by, its limits,
// its metrics, and its Sessions' transcripts. Types only: importing them loads no server library.
import type { ClusterService } from '../entries/postgres.ts';
import type { Clock, Logger, ScheduleInspector, ScheduleService } from '../index.ts';
import type { ConsoleLimits } from './limits.ts';

/** The remote methods the console answers. */
export type ConsoleRemoteMethod =
  | 'catalog'
  | 'get'
  | 'list'
  | 'history'
  | 'update'
  | 'delete'
  | 'pause'
  | 'resume'
  | 'trigger'
  | 'drift'
  | 'reanchor'
  | 'counts'
  | 'bulk';

/** Who holds which shards, as a cluster member reads it. */
export type ClusterTopology = Awaited<ReturnType<ClusterService['topology']>>;

/** The schedule as the console uses it: a `ScheduleService` and a `ClusterService` both are one. */
export interface ConsoleService {
  readonly toolDefinitions: ScheduleService['toolDefinitions'];
  callTool: ClusterService['callTool'];
  readonly remote: Pick<ScheduleService['remote'], ConsoleRemoteMethod>;
  subscribe: ScheduleService['subscribe'];
  /** What the readiness probe reads. */
  health: ScheduleService['health'];
  /** A cluster member's (a `ScheduleService` over a shared storage): its id, the leases, a Session's owner. */
  readonly cluster?: ConsoleCluster;
  /** A `ClusterService`'s id (shown in `/api/status` and `/api/cluster`). */
  readonly hostId?: string;
  /** A `ClusterService`'s view of the shard leases (`GET /api/cluster`). */
  topology?(): Promise<ClusterTopology>;
  /** A `ClusterService`'s answer to which Host holds a Session's shard. */
  ownerOf?(sessionId: string): Promise<string | undefined>;
}

/** What the console shows of a cluster: this Host, the leases, and a Session's owner (the `x-schedule-owner` header). */
export interface ConsoleCluster {
  readonly hostId: string;
  topology(): Promise<ClusterTopology>;
  ownerOf(sessionId: string): Promise<string | undefined>;
}

/** The service's cluster, in either of the forms a service has it; undefined for one Host. */
export function clusterOf(service: ConsoleService): ConsoleCluster | undefined {
  if (service.cluster !== undefined) return service.cluster;
  const { hostId, topology, ownerOf } = service;
  if (hostId === undefined || topology === undefined || ownerOf === undefined) return undefined;
  return { hostId, topology: () => topology.call(service), ownerOf: (sessionId) => ownerOf.call(service, sessionId) };
}

/** Lines a Session's transcript grew by; announced to the page as a `delivery` event. */
export interface TranscriptAppend {
  readonly sessionId: string;
  readonly lines: readonly unknown[];
}

/** The Host's Session transcripts, which the page's Transcripts tab reads. */
export interface ConsoleTranscripts {
  /** A Session's transcript as JSON lines (`[]` for a Session without one). */
  transcript(sessionId: string): Promise<readonly unknown[]>;
  /** The Sessions that have a transcript, listed by `GET /api/sessions` beside those with tasks. */
  list?(): Promise<readonly string[]>;
  /** Called after each append, so the page shows new lines live. Answers a function that stops. */
  subscribe?(listener: (append: TranscriptAppend) => void): () => void;
}

/** A Prometheus text exposition, served as `GET /metrics` (see `createConsoleMetrics`). */
export interface ConsoleMetricsSource {
  /** The media type of the exposition's text. */
  readonly contentType: string;
  exposition(): Promise<string>;
}

/**
 * Whether a request may be answered. `sessionId` is the Session the request is about: the one in
 * its path (`/api/sessions/:id/…`) or its `sessionId` query parameter; absent for a request about
 * every Session (the catalog, bulk actions, the event stream, the page).
 */
export type ConsoleAuthorize = (request: Request, sessionId: string | undefined) => boolean | Promise<boolean>;

export interface ConsoleOptions {
  readonly service: ConsoleService;
  /** The live inspector of the service's actor system; without one the Inspector tab is hidden and `/api/inspect*` answer 404. */
  readonly inspector?: ScheduleInspector;
  /** The clock shown as the Host's time and previews start from (default: the system clock). */
  readonly clock?: Pick<Clock, 'now'>;
  /** Where unexpected failures and disconnected stream clients are logged (default: console). */
  readonly logger?: Logger;
  /** The path prefix requests arrive with (`/schedule`); default none. */
  readonly basePath?: string;
  /**
   * The `Host` header values answered: `name` (any port) or `name:port`; any other is refused
   * (`host_not_allowed`). Default: the loopback names `localhost`, `127.0.0.1` and `[::1]` on any
   * port. A list replaces the default: name the loopback ones too if they should still answer.
   */
  readonly allowedHosts?: readonly string[];
  /** Origins (`https://ops.example`) allowed to write besides the allowed hosts' own `http://` pages. */
  readonly allowedOrigins?: readonly string[];
  /** Overrides of {@link DEFAULT_CONSOLE_LIMITS}. */
  readonly limits?: Partial<ConsoleLimits>;
  /** Who may call; refused requests get 403 `not_authorized`. Default: loopback clients only (see `loopbackOnly`). */
  readonly authorize?: ConsoleAuthorize;
  /** What `GET /metrics` serves; without it the route answers 404. */
  readonly metrics?: ConsoleMetricsSource;
  /** The Sessions' transcripts; without them the Transcripts tab is hidden and the transcript route answers 404. */
  readonly transcripts?: ConsoleTranscripts;
  /** Members `GET /api/status` adds (the reference Host says whether its test clock runs). */
  readonly status?: () => Readonly<Record<string, unknown>>;
  /**
   * The Host's own API routes, answered after the console's checks (`Host` and `Origin`,
   * `authorize`, the body's size and deadline) and before its "not found": the reference Host's
   * `POST /api/test/clock`.
   */
  readonly routes?: readonly ConsoleRoute[];
  /** Which Session ids the routes accept (default {@link isConsoleSessionId}); others are refused with `invalid_session_id`. */
  readonly isSessionId?: (id: string) => boolean;
}

/** One route of the Host's own, below the console's base path. */
export interface ConsoleRoute {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Below the base path, such as `/api/test/clock`. */
  readonly path: string;
  handle(request: Request): Response | Promise<Response>;
}

/** One live event sent to the page (`GET /api/events`): its type is the SSE event name. */
export type ConsoleEvent =
  | { readonly type: 'schedule/changed'; readonly data: { readonly sessionId: string; readonly ids: readonly string[] } }
  | { readonly type: 'delivery'; readonly data: TranscriptAppend }
  | { readonly type: 'clock'; readonly data: { readonly now: string } };

/** How many streams are open and what waits for their clients. */
export interface StreamStats {
  readonly streams: number;
  readonly backlogBytes: number;
}

/** A console: a Web-standard request handler and its lifecycle. */
export interface Console {
  /**
   * Answers one request. `env` is optional: a Node adapter (`@hono/node-server`, {@link nodeListener})
   * passes `{incoming, outgoing}`, which lets the default `authorize` read the client's address and
   * a stream cut off a slow client at once.
   */
  fetch(request: Request, env?: unknown): Promise<Response>;
  /** Sends a live event to every page (the reference Host's test clock sends `clock`). */
  emit(event: ConsoleEvent): void;
  /** Refuses every request from now on (503 `host_stopping`), ends the live streams and stops listening to the service. */
  close(): void;
  /** The open live streams and the bytes waiting for their clients. */
  streams(): StreamStats;
}

// The composition root (docs/api.md): `createScheduleService` is a thin promise wrapper around
// `createActor(scheduleSupervisor, { input, inspect })`. Every call becomes a `schedule.call` sent
// to the supervisor synchronously, when it is made, so calls made one after another are processed
// in that order; the supervisor's `schedule.reply` settles the call's promise. The only state kept
// here is the map from request id to the promise's resolvers (and the close in progress).
import { type Actor, createActor, waitFor } from 'xstate';
import type { ReplyOf, ReplyValue, ScheduleCall, ScheduleReplyEvent, SupervisorRuntime } from '../machines/events.ts';
import type {
  BulkReanchorRequest,
  BulkRequest,
  HistoryRequest,
  PauseRequest,
  RemoteCallOptions,
  RemoteUpdateRequest,
  SessionRef,
  TaskRef,
} from './domain/args/remoteRequests.ts';
import { MAX_SESSION_ID_LENGTH } from './domain/codec/index.ts';
import { ScheduleError } from './domain/errors.ts';
import type { CatalogPage, CatalogRequest } from './domain/reads/catalogPage.ts';
import type { DriftPage, DriftRequest } from './domain/reads/driftPage.ts';
import type { HistoryPage } from './domain/reads/historyPage.ts';
import type { ArchiveActivity, BulkReanchorResult, DeleteResult, ToolFailure, ToolResult } from './domain/reads/replies.ts';
import type { CountsRequest, ScheduleCounts } from './domain/reads/stateCounts.ts';
import type { ScheduleInspectionEvent } from './domain/serviceOptions.ts';
import type { BulkResult } from './domain/tasks/bulk.ts';
import type { CatalogEntry, ScheduleView } from './domain/tasks/types.ts';
import type { DriftReport } from './domain/time/drift.ts';
import type { ClusterMembership, JoinedCluster, Logger, ScheduleHealth } from './ports.ts';
import { resolveConfig } from './runtime/config.ts';
import { type LegacyNote, noteLegacySession } from './runtime/legacyNote.ts';
import { consoleLogger, isSupervisorInput, type ScheduleSupervisorInput } from './runtime/supervisorInput.ts';
import { scheduleSupervisor } from './supervisor.ts';
import { argumentsForFormat, callFormatError, type ToolCallOptions } from './tools/callFormat.ts';
import { TOOL_DEFINITIONS, type ToolDefinition } from './tools/definitions.ts';

/** The supervisor's input, plus the inspector. */
export interface ScheduleServiceOptions extends ScheduleSupervisorInput {
  /** Handed to XState's `createActor` inspect option: receives XState's inspection events (`InspectionEvent`). */
  inspect?(event: ScheduleInspectionEvent): void;
}

/** `schedule/changed`: a committed change to some tasks of one Session. */
export interface ScheduleChange {
  readonly type: 'schedule/changed';
  readonly sessionId: string;
  readonly ids: string[];
}

/**
 * The running scheduler. Every answer below is JSON data. A refused tool or remote call resolves
 * to a `ToolFailure` (`{code, message}`) — only refusals (and a delete that deleted nothing) have
 * a `code` member, so `'code' in result` narrows an answer without casts.
 */
export interface ScheduleService {
  readonly toolDefinitions: ReadonlyArray<ToolDefinition>;
  /**
   * Runs one model tool call in the calling Session and resolves to the tool's answer, typed per
   * tool name (`ToolResults`). Rejects only for a malformed Session id or option, an aborted call
   * (with the signal's reason; nothing is written) or a closed service.
   */
  callTool<N extends string>(sessionId: string, name: N, args: unknown, options?: ToolCallOptions): Promise<ToolResult<N>>;
  /** The Host's UI namespace: explicit Session ids; no call activates an Agent. */
  readonly remote: {
    /** Every task, active and inactive, in id order, with only its latest receipt. */
    catalog(): Promise<CatalogEntry[]>;
    /** One page of the catalog: filtered, sorted, from a cursor (`CatalogRequest`); bad options are refused. */
    catalog(request: CatalogRequest): Promise<CatalogPage | ToolFailure>;
    /** One task of a Session (active or ended) as a catalog entry. */
    get(request: TaskRef): Promise<CatalogEntry | ToolFailure>;
    /** A Session's active tasks, soonest first. */
    list(request: SessionRef): Promise<ScheduleView[] | ToolFailure>;
    /** One page of a task's saved deliveries, newest first. */
    history(request: HistoryRequest): Promise<HistoryPage | ToolFailure>;
    /** A complete-record compare-and-set; answers the task's view after the update. */
    update(request: RemoteUpdateRequest, options?: RemoteCallOptions): Promise<ScheduleView | ToolFailure>;
    /** Deletes a task (active or ended) with its history; a refusal is a `TaskNotDeleted`. */
    delete(request: TaskRef, options?: RemoteCallOptions): Promise<DeleteResult>;
    /**
     * Pauses an active task (kept, never delivered until resumed or run now), with `note` saying
     * why when given; a paused task is answered as it is, or with the new note in place of its own.
     */
    pause(request: PauseRequest, options?: RemoteCallOptions): Promise<ScheduleView | ToolFailure>;
    /** Resumes a paused task; a recurring one skips the occurrences it missed while paused. */
    resume(request: TaskRef, options?: RemoteCallOptions): Promise<ScheduleView | ToolFailure>;
    /** Run now: one extra delivery as soon as the Session can take it (receipt `trigger: "manual"`). */
    trigger(request: TaskRef, options?: RemoteCallOptions): Promise<ScheduleView | ToolFailure>;
    /** Active daily, weekly and cron tasks whose committed target the current time-zone data no longer yields. */
    drift(): Promise<DriftReport>;
    /** The first `limit` (1–500) of those tasks, in the same order, and how many there are in all. */
    drift(request: DriftRequest): Promise<DriftPage | ToolFailure>;
    /**
     * Moves a drifted task's target to its rule's first occurrence after now (one write, one
     * `schedule/changed`) and answers its view; a task that is not drifted is answered unchanged.
     */
    reanchor(request: TaskRef, options?: RemoteCallOptions): Promise<ScheduleView | ToolFailure>;
    /** Re-anchors every drifted task named (or all of them) in one write, one change per Session. */
    reanchor(request: BulkReanchorRequest, options?: RemoteCallOptions): Promise<BulkReanchorResult | ToolFailure>;
    /**
     * How many tasks are in each state (scheduled, overdue, paused, failing, ended, total), kept
     * as tasks change: the whole schedule's, and the Session's when the request names one.
     */
    counts(request?: CountsRequest): Promise<ScheduleCounts | ToolFailure>;
    /**
     * Pauses, resumes or runs now the listed tasks, or every task a catalog filter matches when
     * the call starts, in batches of 200 (one mailbox slot each, so deliveries go on between
     * them); answers how many matched, how many were changed and why the others were skipped.
     */
    bulk(request: BulkRequest, options?: RemoteCallOptions): Promise<BulkResult | ToolFailure>;
  };
  /** Archive admission for the Host's Session archive. Rejects with a ScheduleError on failure. */
  readonly archive: {
    /** The Session's active tasks as the `schedule` family; nothing for a Session without any. */
    sessionActivity(sessionId: string): Promise<ArchiveActivity[]>;
    /** Deletes the Session's active tasks in one write. */
    sessionStop(sessionId: string): Promise<void>;
  };
  subscribe(listener: (change: ScheduleChange) => void): () => void;
  /** Folds a Session's legacy `schedule/change` events and warns when it still has active reminders (never migrated). */
  noteLegacySession(sessionId: string, events: unknown[], options?: { seedLength?: number }): LegacyNote;
  whenIdle(): Promise<void>;
  /** Whether the service is open (a readiness probe's answer, read from memory): false once `close()` was called. */
  health(): ScheduleHealth;
  close(): Promise<void>;
  /**
   * A member of a cluster only (its storage is `postgresStorage({ …, cluster })`): this Host's
   * id, the shards it holds, the cluster's leases, which Host holds a Session's shard, and a step
   * of the lease keeper for a Host that runs them itself.
   */
  readonly cluster?: ScheduleCluster;
}

/** What a cluster member tells of the cluster (`ScheduleService.cluster`). */
export type ScheduleCluster = Pick<JoinedCluster, 'hostId' | 'held' | 'topology' | 'ownerOf' | 'step'>;

/** How a pending call's promise settles once its reply arrives. */
interface PendingCall {
  resolve(value: ReplyValue): void;
  reject(error: unknown): void;
}

/** The `callId` member of a call, when the caller gave one (checked when the call runs). */
const keyed = (options: { readonly callId?: string } | undefined): { callId?: string } =>
  options?.callId === undefined ? {} : { callId: options.callId };

/** Sends one call where it runs; settles with its reply, typed by the call (`ReplyOf`). */
type CallRunner = <C extends ScheduleCall>(request: C) => Promise<ReplyOf<C>>;

/** What differs between one Host and a cluster member; the methods are built over it alike. */
interface ServiceCore {
  readonly call: CallRunner;
  subscribe(listener: (change: ScheduleChange) => void): () => void;
  whenIdle(): Promise<void>;
  health(): ScheduleHealth;
  close(): Promise<void>;
  readonly cluster?: ScheduleCluster;
}

/**
 * Opens the domain and starts the actor system; over a storage many Hosts share (one with a
 * `cluster` membership) joins the cluster as this Host instead. Rejects with
 * `corrupt_schedule_log` on a bad domain.
 */
export async function createScheduleService(options: ScheduleServiceOptions): Promise<ScheduleService> {
  if (!isSupervisorInput(options)) throw new TypeError('createScheduleService needs options.sessions with resolveAgent(sessionId).');
  resolveConfig(options.config); // a bad configuration rejects here, before anything is opened
  const logger = options.logger ?? consoleLogger;
  const membership = options.storage?.cluster;
  const core = membership === undefined ? await singleHost(options, logger) : await clusterMember(membership, options, logger);
  return serviceOver(core, logger);
}

/** This Host as one member of the cluster its storage belongs to: every call runs on the member. */
async function clusterMember(membership: ClusterMembership, options: ScheduleServiceOptions, logger: Logger): Promise<ServiceCore> {
  const { sessions, clock, config, metrics, inspect } = options;
  const joined = await membership.join({
    sessions,
    logger,
    ...(clock === undefined ? {} : { clock }),
    ...(config === undefined ? {} : { config }),
    ...(metrics === undefined ? {} : { metrics }),
    ...(inspect === undefined ? {} : { inspect }),
  });
  let closing: Promise<void> | null = null;
  return {
    // The member answers each call as the call's own operation (the shard's supervisor planned it).
    call: <C extends ScheduleCall>(request: C) =>
      closing === null
        ? (joined.run(request) as Promise<ReplyOf<C>>)
        : Promise.reject(new ScheduleError('internal_error', 'The schedule service is closed.')),
    subscribe: (listener) => joined.subscribe(({ sessionId, ids }) => listener({ type: 'schedule/changed', sessionId, ids: [...ids] })),
    whenIdle: () => joined.whenIdle(),
    health: () => ({ ...joined.health(), open: closing === null && joined.health().open }),
    close: () => {
      closing ??= joined.close();
      return closing;
    },
    cluster: {
      hostId: joined.hostId,
      held: () => joined.held(),
      topology: () => joined.topology(),
      ownerOf: (sessionId) => joined.ownerOf(sessionId),
      step: () => joined.step(),
    },
  };
}

/** One Host: the supervisor's actor system over the storage, each call sent to its mailbox. */
async function singleHost(options: ScheduleServiceOptions, logger: Logger): Promise<ServiceCore> {
  const { inspect, ...input } = options;
  const pending = new Map<string, PendingCall>();
  // A closed service drops the actor tree for the garbage collector rather than stopping it actor by actor.
  const supervisorInput = { ...input, keepTreeOnClose: true };
  let supervisor: Actor<typeof scheduleSupervisor> | null = createActor(
    scheduleSupervisor,
    inspect === undefined ? { input: supervisorInput } : { input: supervisorInput, inspect },
  );
  supervisor.on('schedule.reply', settle);

  supervisor.start();
  const opened = await waitFor(supervisor, (s) => s.status !== 'active' || s.context.runtime !== null);
  if (opened.status === 'error') throw opened.error;
  let runtime: SupervisorRuntime | null = opened.context.runtime;
  if (opened.status !== 'active' || runtime === null) throw new ScheduleError('internal_error', 'The schedule service could not start.');

  function settle(reply: ScheduleReplyEvent): void {
    const call = pending.get(reply.requestId);
    if (call === undefined) return;
    pending.delete(reply.requestId);
    // A refusal written for the model resolves; a call that could not run rejects with what it threw.
    if (reply.ok) call.resolve(reply.value);
    else call.reject(reply.thrown);
  }

  let closing: Promise<void> | null = null;
  let requestSeq = 0;

  function call<C extends ScheduleCall>(request: C): Promise<ReplyOf<C>> {
    if (closing !== null || runtime === null || supervisor === null)
      return Promise.reject(new ScheduleError('internal_error', 'The schedule service is closed.'));
    const requestId = String(++requestSeq);
    const promise = new Promise<ReplyOf<C>>((resolve, reject) =>
      pending.set(requestId, {
        // The reply to this request id is the answer the supervisor planned for this call, so its
        // value is `ReplyOf<C>`; the compiler cannot follow a reply correlated by id, so this is
        // the one place the value is narrowed from `ReplyValue`.
        resolve: (value) => resolve(value as ReplyOf<C>),
        reject,
      }),
    );
    supervisor.send({ type: 'schedule.call', requestId, call: request });
    return promise;
  }

  return {
    call,
    subscribe(listener) {
      if (supervisor === null) return () => undefined;
      const subscription = supervisor.on('schedule/changed', ({ sessionId, ids }) => {
        try {
          listener({ type: 'schedule/changed', sessionId, ids: [...ids] });
        } catch (cause) {
          logger.error('A schedule/changed listener threw.', { cause });
        }
      });
      return () => subscription.unsubscribe();
    },
    whenIdle: () => runtime?.whenIdle() ?? Promise.resolve(),
    health: () => ({ open: closing === null && supervisor?.getSnapshot().status === 'active' }),
    close() {
      if (closing !== null) return closing;
      const root = supervisor;
      closing = (async () => {
        if (root === null) return;
        root.send({ type: 'schedule.close' });
        const closed = await waitFor(root, (s) => s.status !== 'active' || s.matches('closed'));
        // Drops every reference to the actor tree and the rows, so a closed service holds no memory.
        pending.clear();
        supervisor = null;
        runtime = null;
        if (closed.status === 'error') throw closed.error;
      })();
      return closing;
    },
  };
}

/** The service's methods over one Host's or one member's way of running calls. */
function serviceOver(core: ServiceCore, logger: Logger): ScheduleService {
  const { call } = core;

  // Without a request every task, with paging options one page (or a refusal of bad options).
  function catalog(): Promise<CatalogEntry[]>;
  function catalog(request: CatalogRequest): Promise<CatalogPage | ToolFailure>;
  function catalog(request?: CatalogRequest) {
    return request === undefined ? call({ kind: 'remote', method: 'catalog' }) : call({ kind: 'remote', method: 'catalog', request });
  }

  function drift(): Promise<DriftReport>;
  function drift(request: DriftRequest): Promise<DriftPage | ToolFailure>;
  function drift(request?: DriftRequest) {
    return request === undefined ? call({ kind: 'remote', method: 'drift' }) : call({ kind: 'remote', method: 'drift', request });
  }

  // Each form of the request answers its own form; one body serves both overloads.
  function reanchor(request: TaskRef, options?: RemoteCallOptions): Promise<ScheduleView | ToolFailure>;
  function reanchor(request: BulkReanchorRequest, options?: RemoteCallOptions): Promise<BulkReanchorResult | ToolFailure>;
  function reanchor(request: TaskRef | BulkReanchorRequest, options?: RemoteCallOptions) {
    return call({ kind: 'remote', method: 'reanchor', request, ...keyed(options) });
  }

  return {
    toolDefinitions: TOOL_DEFINITIONS,
    callTool(sessionId, name, args, callOptions) {
      if (typeof sessionId !== 'string' || sessionId.length === 0 || sessionId.length > MAX_SESSION_ID_LENGTH) {
        return Promise.reject(
          new TypeError(`callTool needs the calling Session id as a string of 1 to ${MAX_SESSION_ID_LENGTH} characters.`),
        );
      }
      const formatError = callFormatError(callOptions?.format);
      if (formatError !== undefined) return Promise.reject(formatError);
      const toolArgs = argumentsForFormat(args, callOptions?.format);
      const signal = callOptions?.signal;
      return call({ kind: 'tool', sessionId, name, args: toolArgs, ...(signal === undefined ? {} : { signal }), ...keyed(callOptions) });
    },
    remote: {
      catalog,
      get: (request) => call({ kind: 'remote', method: 'get', request }),
      list: (request) => call({ kind: 'remote', method: 'list', request }),
      history: (request) => call({ kind: 'remote', method: 'history', request }),
      update: (request, options) => call({ kind: 'remote', method: 'update', request, ...keyed(options) }),
      delete: (request, options) => call({ kind: 'remote', method: 'delete', request, ...keyed(options) }),
      pause: (request, options) => call({ kind: 'remote', method: 'pause', request, ...keyed(options) }),
      resume: (request, options) => call({ kind: 'remote', method: 'resume', request, ...keyed(options) }),
      trigger: (request, options) => call({ kind: 'remote', method: 'trigger', request, ...keyed(options) }),
      drift,
      reanchor,
      counts: (request) => call({ kind: 'remote', method: 'counts', request }),
      bulk: (request, options) => call({ kind: 'remote', method: 'bulk', request, ...keyed(options) }),
    },
    archive: {
      sessionActivity: (sessionId) => call({ kind: 'archive', method: 'sessionActivity', sessionId }),
      sessionStop: async (sessionId) => {
        await call({ kind: 'archive', method: 'sessionStop', sessionId });
      },
    },
    subscribe: (listener) => core.subscribe(listener),
    noteLegacySession: (sessionId, events, legacyOptions) => noteLegacySession(logger, sessionId, events, legacyOptions),
    whenIdle: () => core.whenIdle(),
    health: () => core.health(),
    close: () => core.close(),
    ...(core.cluster === undefined ? {} : { cluster: core.cluster }),
  };
}

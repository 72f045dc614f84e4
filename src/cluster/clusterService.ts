// Many Hosts on one PostgreSQL schema: `createClusterService` runs this Host's part. A shard keeper
// holds this Host's fair share of the 256 shards (leases renewed every third of `leaseMs`); each
// shard held runs its own schedule service over a storage that reads only that shard and fences
// every commit with the shard's lease; the call router hands each call for a Session of another
// Host's shard to that Host through the database, and runs here the calls other Hosts hand over;
// the change feed publishes every committed change to the subscribers of every Host. A tool or
// remote call may arrive at any Host and gets the answer the shard's owner gives.

import { callRouter, type JsonValue, type NotificationListener, poolListener } from '../adapters/postgres/callRouter.ts';
import { changeFeed } from '../adapters/postgres/changeFeed.ts';
import { guardedPool, type SqlPool } from '../adapters/postgres/driver.ts';
import { quoteSchema } from '../adapters/postgres/migrations.ts';
import { DEFAULT_SCHEMA, type PostgresStorage, postgresStorage } from '../adapters/postgres/postgresStorage.ts';
import { reservedConnection } from '../adapters/postgres/reservedConnection.ts';
import type { KeeperTimers } from '../adapters/postgres/shardKeeper.ts';
import { DEFAULT_LEASE_MS, shardKeeper } from '../adapters/postgres/shardKeeper.ts';
import { sharedCommits } from '../adapters/postgres/sharedCommits.ts';
import { TaskNumberBlocks } from '../adapters/postgres/taskNumberBlocks.ts';
import type { RemoteCallOptions } from '../domain/args/remoteRequests.ts';
import { isScheduleError } from '../domain/errors.ts';
import type { ArchiveActivity, ToolResult } from '../domain/reads/replies.ts';
import type { ScheduleConfig, ScheduleInspectionEvent } from '../domain/serviceOptions.ts';
import { shardOf } from '../domain/tasks/sessionShard.ts';
import type { Clock, ClusterTopology, Logger, ScheduleHealth, ScheduleMetrics, SessionController, StepReport } from '../ports.ts';
import { resolveConfig } from '../runtime/config.ts';
import { metricsReporter } from '../runtime/metricsReporter.ts';
import { readAheadMs } from '../runtime/restReader.ts';
import { consoleLogger } from '../runtime/supervisorInput.ts';
import { createScheduleService, type ScheduleChange, type ScheduleService } from '../service.ts';
import { argumentsForFormat, callFormatError, type ToolCallOptions } from '../tools/callFormat.ts';
import { TOOL_DEFINITIONS } from '../tools/definitions.ts';
import { type ClusterWideRemote, clusterRemote, failuresOf } from './clusterRemote.ts';
import { ClusterReader } from './clusterRows.ts';
import { leasedSessions } from './leasedSessions.ts';
import type { RoutedAnswer, RoutedCall } from './routedCall.ts';
import { answerSessionRead, isSessionRead, type SessionReadsDeps } from './sessionReads.ts';
import { ShardHost } from './shardHost.ts';
import { ShardOwners } from './shardOwners.ts';

/** Options of {@link createClusterService}. */
export interface ClusterServiceOptions {
  /** The pool every Host's schedule shares (a `pg.Pool`, `createPgPool`'s, or anything with the same `connect()`); never ended here. */
  readonly pool: SqlPool;
  /** The schema holding the tables; default `agent_schedule`. */
  readonly schema?: string;
  /** This Host, unique among the running processes. */
  readonly hostId: string;
  /** How long a lease lasts without renewal, in ms (default 15000). */
  readonly leaseMs?: number;
  readonly sessions: SessionController;
  readonly clock?: Clock;
  readonly config?: ScheduleConfig;
  readonly logger?: Logger;
  /** Where every shard service reports its counters, timings and levels, and this Host its shards held (docs/operations.md). */
  readonly metrics?: ScheduleMetrics;
  /** The keeper's timers (default the process's). */
  readonly timers?: KeeperTimers;
  /**
   * Where the shard keeper's heartbeats and renewals run. Default: one connection of `pool` held
   * for the keeper alone, so a renewal never waits behind the shard services' commits and
   * restores (waiting long enough would lose a live Host's leases). Pass `pool` itself to share
   * it, as a pool of a single connection must.
   */
  readonly keeperPool?: SqlPool;
  /**
   * How routed calls travel: the caller's wait (default 10 s), the polling interval (default 1 s),
   * how notifications arrive, and where a Session's reads run. By default `schedule_list` and
   * `remote.get`, `list` and `history` for a Session of a shard this Host does not serve are
   * answered here from the schema's rows (sessionReads.ts); `readAtOwner: true` routes them to the
   * owner too, whose answer also shows what it holds only in memory (a failure status not yet
   * written).
   */
  readonly routing?: {
    readonly timeoutMs?: number;
    readonly pollMs?: number;
    readonly listen?: NotificationListener;
    readonly readAtOwner?: boolean;
  };
  /** False: the keeper's loop is not started and the Host runs each `step()` itself (a test's pace). Default true. */
  readonly autoStart?: boolean;
  /** Gets the XState inspection events of every shard service this Host opens, with the shard they come from. */
  readonly inspect?: (event: ScheduleInspectionEvent, shard: number) => void;
}

/** The process's timers, not keeping it alive. */
const processTimers = {
  setTimeout: (run: () => void, ms: number): unknown => setTimeout(run, ms).unref(),
  clearTimeout: (handle: unknown): void => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** The remote methods a cluster Host answers for any Session. */
/** The `callId` of a call's options, when given (it is checked where the call runs). */
const keyOf = (options: { readonly callId?: string } | undefined): { callId?: string } =>
  options?.callId === undefined ? {} : { callId: options.callId };

export type ClusterRemoteMethod = 'get' | 'list' | 'history' | 'update' | 'delete' | 'pause' | 'resume' | 'trigger';

/**
 * The calls of one Host in a cluster: those of `ScheduleService` that name a Session, answered as
 * one Host would, and the catalog, drift report and re-anchor across every shard.
 */
export interface ClusterService {
  readonly hostId: string;
  /** The model tools' definitions (as `ScheduleService` has them). */
  readonly toolDefinitions: ScheduleService['toolDefinitions'];
  /**
   * A model tool call, with `ScheduleService.callTool`'s options: `format` reads the arguments as
   * that tool format sends them, `callId` makes a mutating call idempotent (it travels with a
   * routed call to the Host that holds the Session), and `signal` aborts the call — before it is
   * sent anywhere, or while it waits in the mailbox of a shard held here (rejecting with the
   * signal's reason, nothing written); a signal does not travel to another Host.
   */
  callTool<N extends string>(sessionId: string, name: N, args: unknown, options?: ToolCallOptions): Promise<ToolResult<N>>;
  /**
   * The remote methods that name one Session, as `ScheduleService` has them, and `catalog`,
   * `drift`, `reanchor`, `counts` and `bulk` over every shard (clusterRemote.ts: the catalog, the
   * drift report and the counts are read from the schema's rows, each with its stored failure
   * status, this Host's shards' newer ones from their services; a bulk call runs at each shard's owner).
   */
  readonly remote: Pick<ScheduleService['remote'], ClusterRemoteMethod> & ClusterWideRemote;
  readonly archive: ScheduleService['archive'];
  /** `schedule/changed` for every committed change, made at any Host of the cluster. */
  subscribe(listener: (change: ScheduleChange) => void): () => void;
  /** The shards this Host holds, with their epochs. */
  held(): ReadonlyMap<number, number>;
  /** The live Hosts and every shard's owner, epoch and expiry, read from the database. */
  topology(): Promise<ClusterTopology>;
  /**
   * The Host holding the shard of `sessionId` (`shardOf`: FNV-1a of the id, modulo 256), from
   * memory for a shard held here, else from the lease table read at most once a second;
   * undefined while no Host holds it.
   */
  ownerOf(sessionId: string): Promise<string | undefined>;
  /** One step of the lease keeper (heartbeat, renew, acquire, rebalance); run on a timer unless `autoStart` is false. */
  step(): Promise<StepReport>;
  /** Every shard service of this Host is idle. */
  whenIdle(): Promise<void>;
  /** Open until `close()` is called, with the shards held and how many of their leases are live by this Host's clock. */
  health(): ScheduleHealth;
  /**
   * Hands every shard back (each after its delivery in flight), stops routing and leaves the
   * cluster; resolves once nothing of this Host runs any more (no timer, keeper step, routed call
   * or listener), so the Host may end its pool right after.
   */
  close(): Promise<void>;
}

/** A shard read ahead of its hand-over: its storage, opened by the read, and the term its fence waits for. */
interface ReadAhead {
  readonly storage: PostgresStorage;
  readonly term: { current: () => boolean };
  discard(): void;
}

/** The Session a request names, read before it is routed (a request without one is refused where it runs). */
const sessionIn = (request: unknown): string => {
  const sessionId = (request as { sessionId?: unknown } | null)?.sessionId;
  return typeof sessionId === 'string' ? sessionId : '';
};

/**
 * Joins the cluster on `pool`'s schema as `hostId`: takes this Host's share of the shards and
 * answers calls for any Session.
 */
export async function createClusterService(options: ClusterServiceOptions): Promise<ClusterService> {
  const { schema, hostId, sessions, logger = consoleLogger } = options;
  // Checked before anything starts: every shard service checks the same config again.
  const { retention, passivationHorizonMs } = resolveConfig(options.config);
  // Every client of the cluster listens for socket errors while checked out (see guardedPool).
  const pool = guardedPool(options.pool);
  // Wrapped once, so every shard service shares it (and a throwing port is logged once).
  const metrics = metricsReporter(options.metrics, logger);
  // One source of task numbers for every shard held, so creates across shards share its blocks.
  const taskNumbers = new TaskNumberBlocks();
  // One statement for the commits the shards held make in one turn or queue behind others on their way.
  const commits = sharedCommits({ pool, quotedSchema: quoteSchema(schema ?? DEFAULT_SCHEMA) });
  /** The storage of a shard's service, fenced at `epoch` while `term.current()` (a term begins once its lease is held). */
  const shardStorage = (shard: number, epoch: number, term: { current: () => boolean }): PostgresStorage =>
    postgresStorage({
      pool,
      ...(schema === undefined ? {} : { schema }),
      shards: [shard],
      taskNumbers,
      sharedCommits: commits,
      // Only while this term lasts: a service whose term ended commits nothing, even at the same epoch.
      fence: {
        hostId,
        epochs: () => (term.current() ? new Map([[shard, epoch]]) : new Map()),
        // A Host paused mid-commit frees its lease locks well before its leases expire.
        idleTimeoutMs: Math.max(1_000, Math.floor((options.leaseMs ?? DEFAULT_LEASE_MS) / 3)),
      },
    });
  const host: ShardHost<ReadAhead> = new ShardHost<ReadAhead>({
    shardOf,
    logger,
    onHeld: (count) => metrics.shardsHeld(count),
    // A shard offered to this Host is read as its service's open would read it, while its owner serves it.
    prepareShard: async (shard, epoch) => {
      const term = { current: () => false };
      const storage = shardStorage(shard, epoch, term);
      const now = options.clock === undefined ? Date.now() : options.clock.now();
      await storage.prime(passivationHorizonMs === null ? undefined : { dueBefore: now + readAheadMs(passivationHorizonMs) });
      return { storage, term, discard: () => void storage.close().catch(() => undefined) };
    },
    openShard: (shard, epoch, current, ahead) => {
      const term = ahead?.term ?? { current };
      term.current = current;
      return createScheduleService({
        // A reminder is appended and flushed only while this term lasts and the lease is live by
        // this Host's clock; each carries this term's lease for Sessions that fence their writes.
        sessions: leasedSessions(sessions, { hostId, shard, epoch }, () => current() && keeper.holds(shard)),
        logger,
        metrics,
        ...(options.clock === undefined ? {} : { clock: options.clock }),
        ...(options.config === undefined ? {} : { config: options.config }),
        ...(options.inspect === undefined ? {} : { inspect: (event: ScheduleInspectionEvent) => options.inspect?.(event, shard) }),
        storage: ahead?.storage ?? shardStorage(shard, epoch, term),
      }).then((service) => {
        service.subscribe((change) => void feed.publish(change));
        return service;
      });
    },
    route: async (call) => (await router.route(call.sessionId, call as unknown as JsonValue)) as RoutedAnswer,
    // A shard whose service could not open (the database refused a connection) opens again shortly.
    reopen: { timers: options.timers ?? processTimers },
    // Room to open another shard: a keeper that wanted more than it could open steps again.
    onOpened: () => keeper.nudge(),
  });
  const routing = options.routing ?? {};
  const feed = changeFeed({
    pool,
    schema: schema ?? DEFAULT_SCHEMA,
    listen: routing.listen ?? poolListener(pool),
    onError: (error) => logger.warn('A schedule change notification failed.', { cause: error }),
  });
  const router = callRouter({
    pool,
    hostId,
    owns: (shard) => host.epochOf(shard),
    execute: (request) => host.execute(request.request as unknown as RoutedCall),
    onError: (error) => logger.warn('A routed call could not be handled; it is tried again.', { cause: error }),
    // A shard this Host offered, or is taking, moved a step on: the keeper steps at once.
    onNotice: (payload) => keeper.notice(payload),
    ...(schema === undefined ? {} : { schema }),
    ...(routing.timeoutMs === undefined ? {} : { timeoutMs: routing.timeoutMs }),
    ...(routing.pollMs === undefined ? {} : { pollMs: routing.pollMs }),
    ...(routing.listen === undefined ? {} : { listen: routing.listen }),
  });
  // Work the keeper's hooks start without waiting for it; `close()` waits for it.
  const background = new Set<Promise<unknown>>();
  const inBackground = (work: Promise<unknown>): void => {
    background.add(work);
    void work.finally(() => background.delete(work));
  };
  // One claim of pending routed calls at a time, and one more after it for shards gained meanwhile.
  let claiming: Promise<void> | undefined;
  let claimAgain = false;
  const claimSoon = (): void => {
    if (claiming !== undefined) {
      claimAgain = true;
      return;
    }
    claiming = (async () => {
      do {
        claimAgain = false;
        await router.claimPending().catch((error: unknown) => logger.warn('Pending routed calls could not be claimed.', { cause: error }));
      } while (claimAgain);
    })().finally(() => {
      claiming = undefined;
    });
    inBackground(claiming);
  };
  const keeperPool = options.keeperPool === undefined ? reservedConnection(pool) : guardedPool(options.keeperPool);
  const keeper = shardKeeper({
    pool: keeperPool,
    hostId,
    ...(schema === undefined ? {} : { schema }),
    ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
    ...(options.timers === undefined ? {} : { timers: options.timers }),
    // The keeper's loop takes shards only as fast as this Host opens them, taken-over ones first.
    // Reminders fall due by this Host's clock: a shard is handed on only while its next one is far off.
    pace: {
      openCapacity: () => host.openCapacity(),
      serving: (shard) => host.serving(shard),
      // Shards pass from Host to Host by hand-over: the taker reads them while their owner serves them.
      prepare: (shard, epoch) => host.prepare(shard, epoch),
      unprepare: (shard) => host.unprepare(shard),
      now: () => (options.clock === undefined ? Date.now() : options.clock.now()),
    },
    onAcquired: (lease) => {
      host.acquired(lease.shard, lease.epoch, lease.from);
      // Calls routed while the shard had no owner wait for this one: one claim for the shards of a step.
      claimSoon();
    },
    onLost: (shard) => {
      logger.warn('A shard lease was lost; its work stops here.', { shard });
      inBackground(host.lost(shard));
    },
    release: (shard) => host.release(shard),
    onError: (error) => logger.warn('The shard keeper could not reach the database; it keeps trying.', { cause: error }),
  });
  await feed.start();
  await router.start();
  if (options.autoStart !== false) await keeper.start();

  /**
   * A failure to route a call, as a tool or remote call answers it (a value, not a rejection); a
   * call its signal aborted rejects with the signal's reason.
   */
  const answer = async <T>(call: RoutedCall, signal?: AbortSignal): Promise<T> => {
    if (signal?.aborted) throw signal.reason;
    try {
      if (readsHere && isSessionRead(call) && !host.serving(shardOf(call.sessionId))) return (await answerSessionRead(reads, call)) as T;
      return (await host.dispatch(call, signal)) as T;
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (isScheduleError(error) && error.code !== 'internal_error') return error.toFailure() as T;
      throw error;
    }
  };
  const remoteCall =
    (kind: ClusterRemoteMethod) =>
    <T>(request: unknown, options?: RemoteCallOptions): Promise<T> =>
      answer<T>({ kind: `remote.${kind}`, sessionId: sessionIn(request), request, ...keyOf(options) } as RoutedCall);

  const reader = new ClusterReader(pool, schema ?? DEFAULT_SCHEMA);
  const clock = options.clock;
  const readsHere = routing.readAtOwner !== true;
  const reads: SessionReadsDeps = {
    rows: (sessionId) => reader.sessionRows(sessionId),
    retention,
    now: () => (clock === undefined ? Date.now() : clock.now()),
  };
  const wide = clusterRemote({
    reader,
    localFailures: async (shards) => failuresOf(await host.services(shards)),
    dispatch: (call) => answer(call),
    now: () => (clock === undefined ? Date.now() : clock.now()),
  });

  const owners = new ShardOwners(
    hostId,
    (shard) => host.epochOf(shard) !== undefined,
    () => reader.topology(),
  );

  let closing: Promise<void> | undefined;
  return {
    hostId,
    toolDefinitions: TOOL_DEFINITIONS,
    callTool: (sessionId, name, args, callOptions) => {
      const formatError = callFormatError(callOptions?.format);
      if (formatError !== undefined) return Promise.reject(formatError);
      const call: RoutedCall = {
        kind: 'tool',
        sessionId,
        name,
        args: argumentsForFormat(args, callOptions?.format),
        ...keyOf(callOptions),
      };
      return answer(call, callOptions?.signal);
    },
    remote: {
      get: remoteCall('get'),
      list: remoteCall('list'),
      history: remoteCall('history'),
      update: remoteCall('update'),
      delete: remoteCall('delete'),
      pause: remoteCall('pause'),
      resume: remoteCall('resume'),
      trigger: remoteCall('trigger'),
      catalog: wide.catalog,
      drift: wide.drift,
      reanchor: wide.reanchor,
      counts: wide.counts,
      bulk: wide.bulk,
    },
    archive: {
      sessionActivity: async (sessionId) => (await host.dispatch({ kind: 'archive.activity', sessionId })) as ArchiveActivity[],
      sessionStop: async (sessionId) => {
        await host.dispatch({ kind: 'archive.stop', sessionId });
      },
    },
    subscribe: (listener) => feed.subscribe(listener),
    held: () => host.held(),
    topology: () => reader.topology(),
    ownerOf: (sessionId) => owners.ownerOf(shardOf(sessionId)),
    step: () => keeper.step(),
    whenIdle: () => host.whenIdle(),
    health: () => {
      const held = [...host.held().keys()];
      return { open: closing === undefined, shards: { held: held.length, live: held.filter((shard) => keeper.holds(shard)).length } };
    },
    close: () => {
      closing ??= (async () => {
        // The keeper's stop returns once its timers are cleared and no step or renewal of it runs.
        await keeper.stop();
        await Promise.all(background);
        await host.close();
        await router.stop();
        await feed.stop();
        if (options.keeperPool === undefined) await keeperPool.end();
      })();
      return closing;
    },
  };
}

// The composition root (docs/api.md): `createScheduleService` opens the stored domain, starts the
// supervisor actor with the real effects — storage, the Session controller, the clock — and
// exposes the model tools, the remote namespace, archive admission, notifications, `whenIdle`
// and `close`. Every call takes its place in the supervisor's mailbox synchronously, when it is
// made, so calls made one after another are processed in that order.
import { type Actor, createActor, fromCallback, fromPromise, waitFor } from 'xstate';
import type { DeliveryOutcome, DeliveryRequest, DomainChange, Operation, RemoteMethod } from '../machines/events.ts';
import { sessionGroupMachine } from '../machines/sessionGroupMachine.ts';
import { sessionMachine } from '../machines/sessionMachine.ts';
import { type OpenedDomain, type SlotRunEvent, supervisorMachine } from '../machines/supervisorMachine.ts';
import { jsonFileStorage } from './adapters/jsonFileStorage.ts';
import { systemClock } from './adapters/systemClock.ts';
import { MAX_SESSION_ID_LENGTH } from './domain/codec/index.ts';
import { ScheduleError } from './domain/errors.ts';
import type { HistoryPage } from './domain/historyPage.ts';
import { instantMs } from './domain/instant.ts';
import type { CatalogEntry, ScheduleView } from './domain/types.ts';
import type { ScheduleInspectionEvent } from './inspector/inspectionEvent.ts';
import type { Clock, Logger, ScheduleStorage, SessionController } from './ports.ts';
import type { ArchiveActivity, HistoryRequest, RemoteUpdateRequest, SessionRef, TaskRef } from './remote/types.ts';
import { Activity } from './runtime/activity.ts';
import { resolveConfig, type ScheduleConfig } from './runtime/config.ts';
import { deliverBatch } from './runtime/deliveryAttempt.ts';
import { type LegacyNote, noteLegacySession } from './runtime/legacyNote.ts';
import { Limiter } from './runtime/limiter.ts';
import { Scheduler } from './runtime/scheduler.ts';
import type { SlotReply } from './runtime/slotPlan.ts';
import { runSlot } from './runtime/slotRunner.ts';
import { TaskTable } from './runtime/taskTable.ts';
import { argumentsForFormat, callFormatError, type ToolCallOptions } from './tools/callFormat.ts';
import { TOOL_DEFINITIONS, type ToolDefinition } from './tools/definitions.ts';
import type { DeleteResult, ToolFailure, ToolResult } from './tools/results.ts';

export interface ScheduleServiceOptions {
  /** The Host adapter that resolves (and restores) Sessions. Required. */
  readonly sessions: SessionController;
  /** Default: `jsonFileStorage({ path: './data/schedule.json' })`. */
  readonly storage?: ScheduleStorage;
  /** Default: the system clock. */
  readonly clock?: Clock;
  readonly config?: ScheduleConfig;
  /** Handed to XState's `createActor` inspect option: receives XState's inspection events (`InspectionEvent`). */
  inspect?(event: ScheduleInspectionEvent): void;
  /** Default: console. */
  readonly logger?: Logger;
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
    /** Every task, active and inactive, with only its latest receipt. */
    catalog(): Promise<CatalogEntry[]>;
    /** One task of a Session (active or ended) as a catalog entry. */
    get(request: TaskRef): Promise<CatalogEntry | ToolFailure>;
    /** A Session's active tasks, soonest first. */
    list(request: SessionRef): Promise<ScheduleView[] | ToolFailure>;
    /** One page of a task's saved deliveries, newest first. */
    history(request: HistoryRequest): Promise<HistoryPage | ToolFailure>;
    /** A complete-record compare-and-set; answers the task's view after the update. */
    update(request: RemoteUpdateRequest): Promise<ScheduleView | ToolFailure>;
    /** Deletes a task (active or ended) with its history; a refusal is a `TaskNotDeleted`. */
    delete(request: TaskRef): Promise<DeleteResult>;
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
  close(): Promise<void>;
}

const consoleLogger: Logger = {
  warn: (msg, data) => console.warn(msg, data ?? ''),
  error: (msg, data) => console.error(msg, data ?? ''),
};

/** Opens the domain and starts the actor system. Rejects with `corrupt_schedule_log` on a bad domain. */
export async function createScheduleService(options: ScheduleServiceOptions): Promise<ScheduleService> {
  if (typeof options?.sessions?.resolveAgent !== 'function')
    throw new TypeError('createScheduleService needs options.sessions with resolveAgent(sessionId).');
  const config = resolveConfig(options.config);
  const storage = options.storage ?? jsonFileStorage({ path: './data/schedule.json' });
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? consoleLogger;
  const activity = new Activity();
  const restores = new Limiter(config.maxConcurrentRestores);
  const attempting = new Set<string>();
  let table = new TaskTable({ tasks: [], nextTaskNumber: 1 });
  let openError: unknown;
  let closeError: unknown;
  // The supervisor is created below; the timer routes due tasks to it.
  let actor: Actor<typeof supervisorMachine> | undefined;
  const scheduler = new Scheduler({
    clock,
    config,
    activity,
    sessionOf: (id) => table.get(id)?.sessionId,
    targetOf: (id) => {
      const row = table.get(id);
      return row === undefined || row.status !== 'active' ? undefined : instantMs(row.record.scheduledAt);
    },
    onDue: (now, due) => actor?.send({ type: 'clock.wake', now, due }),
    // A pending receipt's write is retried like a flushed attempt's commit (the slot ends the activity).
    onCommitDue: (sessionId, outcome) => {
      if (actor === undefined) return;
      activity.begin();
      actor.send({ type: 'delivery.flushed', sessionId, outcome });
    },
  });
  const slotDeps = () => ({ table, storage, clock, logger, config, scheduler, attempting });

  const machine = supervisorMachine.provide({
    actors: {
      openDomain: fromPromise<OpenedDomain>(async () => {
        try {
          table = new TaskTable(await storage.open());
        } catch (error) {
          openError = error;
          throw error;
        }
        const activeRows = [...table.activeRowsAll()];
        for (const row of activeRows) scheduler.track(row);
        return { activeRows };
      }),
      slotRunner: fromCallback<SlotRunEvent>(({ sendBack, receive }) => {
        receive((event) => {
          const count = event.commands.length;
          void runSlot(slotDeps(), event.commands).then((outcome) => sendBack({ type: 'slot.done', outcome, count }));
        });
      }),
      closeDomain: fromPromise<void>(async () => {
        try {
          await storage.close();
        } catch (error) {
          closeError = error;
          logger.error('The schedule storage did not close cleanly.', { cause: error });
        }
      }),
      sessionGroup: sessionGroupMachine.provide({
        actors: {
          session: sessionMachine.provide({
            actors: {
              deliverBatch: fromPromise<DeliveryOutcome, DeliveryRequest>(({ input }) => {
                activity.begin();
                attempting.add(input.sessionId);
                return deliverBatch(
                  { sessions: options.sessions, clock, logger, restores, pendingCommits: scheduler.pendingCommits },
                  input,
                );
              }),
            },
          }),
        },
      }),
    },
  });

  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: unknown) => void }>();
  const listeners = new Set<(change: ScheduleChange) => void>();
  const supervisor = createActor(machine, options.inspect === undefined ? {} : { inspect: options.inspect });
  actor = supervisor;
  supervisor.on('reply', ({ requestId, reply }) => {
    const call = pending.get(requestId);
    if (call === undefined) return;
    pending.delete(requestId);
    const r = reply as SlotReply;
    if ('reject' in r) call.reject(r.reject);
    else call.resolve(r.resolve);
    activity.end();
  });
  supervisor.on('slot.done', ({ requestIds }) => {
    // Internal commands are delivery commits: the attempt that began in deliverBatch ends here.
    for (const requestId of requestIds) if (requestId === null) activity.end();
  });
  supervisor.on('delivery.failed', ({ sessionId, ids }) => {
    attempting.delete(sessionId);
    scheduler.failed(ids, clock.now());
    scheduler.rearm();
    activity.end();
  });
  supervisor.on('changed', ({ changes }) => notify(changes));

  function notify(changes: readonly DomainChange[]): void {
    for (const change of changes) {
      const event: ScheduleChange = { type: 'schedule/changed', sessionId: change.sessionId, ids: [...change.ids] };
      for (const listener of [...listeners]) {
        try {
          listener(event);
        } catch (cause) {
          logger.error('A schedule/changed listener threw.', { cause });
        }
      }
    }
  }

  supervisor.start();
  const opened = await waitFor(supervisor, (s) => s.status !== 'active' || !s.matches('opening'));
  if (opened.matches('failed') || opened.status !== 'active') {
    supervisor.stop();
    throw openError ?? new ScheduleError('internal_error', 'The schedule service could not start.');
  }
  scheduler.rearm();

  /** Drops every reference to the actor tree and the rows, so a closed service holds no memory. */
  function release(): void {
    pending.clear();
    listeners.clear();
    table = new TaskTable({ tasks: [], nextTaskNumber: table.nextTaskNumber });
    actor = undefined;
  }

  let closing: Promise<void> | null = null;
  let requestSeq = 0;

  /** Queues an operation in the mailbox now; settles with the slot's reply. */
  function enqueue(operation: Operation): Promise<unknown> {
    if (closing !== null) return Promise.reject(new ScheduleError('internal_error', 'The schedule service is closed.'));
    const requestId = ++requestSeq;
    activity.begin();
    const promise = new Promise<unknown>((resolve, reject) => pending.set(requestId, { resolve, reject }));
    actor?.send({ type: 'command', command: { requestId, operation } });
    return promise;
  }

  const remoteCall = (method: RemoteMethod, request: unknown) => enqueue({ kind: 'remote', method, request });

  const service: ScheduleService = {
    toolDefinitions: TOOL_DEFINITIONS,
    callTool(sessionId, name, args, callOptions) {
      if (typeof sessionId !== 'string' || sessionId.length === 0 || sessionId.length > MAX_SESSION_ID_LENGTH) {
        return Promise.reject(
          new TypeError(`callTool needs the calling Session id as a string of 1 to ${MAX_SESSION_ID_LENGTH} characters.`),
        );
      }
      const formatError = callFormatError(callOptions?.format);
      if (formatError !== undefined) return Promise.reject(formatError);
      const input = argumentsForFormat(args, callOptions?.format);
      const signal = callOptions?.signal;
      return enqueue(
        signal === undefined ? { kind: 'tool', sessionId, name, args: input } : { kind: 'tool', sessionId, name, args: input, signal },
      ) as Promise<ToolResult<typeof name>>;
    },
    remote: {
      catalog: () => remoteCall('catalog', {}) as Promise<CatalogEntry[]>,
      get: (request) => remoteCall('get', request) as Promise<CatalogEntry | ToolFailure>,
      list: (request) => remoteCall('list', request) as Promise<ScheduleView[] | ToolFailure>,
      history: (request) => remoteCall('history', request) as Promise<HistoryPage | ToolFailure>,
      update: (request) => remoteCall('update', request) as Promise<ScheduleView | ToolFailure>,
      delete: (request) => remoteCall('delete', request) as Promise<DeleteResult>,
    },
    archive: {
      sessionActivity: (sessionId) => enqueue({ kind: 'archive.activity', sessionId }) as Promise<ArchiveActivity[]>,
      sessionStop: async (sessionId) => {
        await enqueue({ kind: 'archive.stop', sessionId });
      },
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    noteLegacySession: (sessionId, events, legacyOptions) => noteLegacySession(logger, sessionId, events, legacyOptions),
    whenIdle: () => activity.whenIdle(),
    close() {
      if (closing !== null) return closing;
      const root = actor;
      closing = (async () => {
        scheduler.stop();
        scheduler.drainPendingCommits(); // one last write of receipts still waiting; lost only if it fails
        await activity.whenIdle();
        if (root !== undefined) {
          root.send({ type: 'close' });
          await waitFor(root, (s) => s.matches('closed'));
        }
        release();
        if (closeError !== undefined) throw closeError;
      })();
      return closing;
    },
  };
  return service;
}

// `clusterSupervisor`: one Host's part of a cluster as actor logic a Host built on XState invokes,
// speaking the supervisor's protocol — it accepts `schedule.call` and `schedule.close`, answers
// `schedule.reply` (typed by the call's operation, to `replyTo`, else the parent) and tells the
// parent `schedule.changed` for every change committed at any Host of the cluster. A cluster Host
// is not one supervisor: it runs one per shard it holds, opened and closed as leases move, and
// routes calls for other Hosts' Sessions through the database; so this actor holds a
// `createClusterService` and hands each call to it, as the service's own callers do.
// `opening` (joins the cluster; calls wait) → `running` (calls run concurrently, each answered
// when it settles) → `draining` (after `schedule.close`: calls in progress finish) → `closing`
// (the Host leaves the cluster) → `closed` (final). A cluster that cannot be joined, or left,
// ends the actor with status `error`, which the invoke's `onError` receives.
import { assign, enqueueActions, fromCallback, fromPromise, sendTo, setup } from 'xstate';
import type { ScheduleCallEvent } from '../../machines/events.ts';
import type { ReplyValue, ScheduleCall } from '../../machines/replies.ts';
import { callOp, replyBody, type ScheduleReplyBody, type ScheduleReplyEvent } from '../../machines/scheduleReply.ts';
import { ScheduleError } from '../domain/errors.ts';
import type { RemoteCallOptions } from '../remote/types.ts';
import { type ClusterService, type ClusterServiceOptions, createClusterService } from './clusterService.ts';

/** What the actor hears: the Host's protocol, and its call runner's reports. */
export type ClusterSupervisorEvent =
  | ScheduleCallEvent
  | { readonly type: 'schedule.close' }
  | { readonly type: 'call.settled'; readonly call: ScheduleCallEvent; readonly body: ScheduleReplyBody }
  | { readonly type: 'cluster.changed'; readonly sessionId: string; readonly ids: readonly string[] }
  | { readonly type: 'calls.drained' };

export interface ClusterSupervisorContext {
  readonly input: ClusterServiceOptions;
  /** This Host's part of the cluster, once joined. */
  readonly service: ClusterService | null;
  /** Calls that arrived before the cluster was joined, in arrival order. */
  readonly waiting: readonly ScheduleCallEvent[];
  readonly closeAsked: boolean;
}

/** The `callId` of a call, as the service's options take it. */
const keyed = (call: { readonly callId?: string }): RemoteCallOptions => (call.callId === undefined ? {} : { callId: call.callId });

/** Runs one call against the cluster service, as its method of the same name. */
function runCall(service: ClusterService, call: ScheduleCall): Promise<ReplyValue> {
  switch (call.kind) {
    case 'tool':
      return service.callTool(call.sessionId, call.name, call.args, {
        ...keyed(call),
        ...(call.signal === undefined ? {} : { signal: call.signal }),
      });
    case 'remote': {
      // Every remote method takes the request (absent for a whole catalog or drift report) and its options.
      const remote = service.remote as unknown as Record<string, (request: unknown, options: RemoteCallOptions) => Promise<ReplyValue>>;
      const method = remote[call.method];
      if (method === undefined) return Promise.reject(new ScheduleError('invalid_selector', `No remote method ${call.method}.`));
      return method(call.request, keyed(call));
    }
    case 'archive':
      return call.method === 'sessionActivity'
        ? service.archive.sessionActivity(call.sessionId)
        : service.archive.sessionStop(call.sessionId).then(() => undefined);
  }
}

/** Runs calls as they come and reports each settled one; on `calls.drain`, reports once none is left. */
const callRunner = fromCallback<
  ScheduleCallEvent | { readonly type: 'calls.drain' },
  { readonly service: ClusterService | null; readonly waiting: readonly ScheduleCallEvent[] }
>(({ input, sendBack, receive }) => {
  const { service } = input;
  if (service === null) throw new Error('The cluster supervisor has no cluster service.');
  const running = new Set<Promise<void>>();
  const run = (call: ScheduleCallEvent): void => {
    const settled = runCall(service, call.call).then(
      (value) => sendBack({ type: 'call.settled', call, body: replyBody({ resolve: value }) }),
      (error: unknown) => sendBack({ type: 'call.settled', call, body: replyBody({ reject: error }) }),
    );
    running.add(settled);
    void settled.finally(() => running.delete(settled));
  };
  const unsubscribe = service.subscribe((change) => sendBack({ type: 'cluster.changed', sessionId: change.sessionId, ids: change.ids }));
  for (const call of input.waiting) run(call);
  receive((event) => {
    if (event.type === 'schedule.call') run(event);
    else void Promise.all(running).then(() => sendBack({ type: 'calls.drained' }));
  });
  return unsubscribe;
});

/** The reply to `call`, typed by its operation (the body was settled by a call of that operation). */
const replyTo = (call: ScheduleCallEvent, body: ScheduleReplyBody): ScheduleReplyEvent =>
  ({ type: 'schedule.reply', requestId: call.requestId, op: callOp(call.call), ...body }) as ScheduleReplyEvent;

/**
 * One Host of a cluster as actor logic: input `ClusterServiceOptions` (as `createClusterService`
 * takes them); the protocol of `scheduleSupervisor`. Calls run concurrently (each Session's shard
 * keeps its own order), so replies may arrive out of request order: match them by `requestId`.
 */
export const clusterSupervisor = setup({
  types: {
    input: {} as ClusterServiceOptions,
    context: {} as ClusterSupervisorContext,
    events: {} as ClusterSupervisorEvent,
    emitted: {} as ScheduleReplyEvent | { readonly type: 'schedule/changed'; readonly sessionId: string; readonly ids: readonly string[] },
  },
  actors: {
    joinCluster: fromPromise<ClusterService, ClusterServiceOptions>(({ input }) => createClusterService(input)),
    leaveCluster: fromPromise<void, ClusterService | null>(async ({ input }) => input?.close()),
    callRunner,
  },
  actions: {
    reply: enqueueActions(({ enqueue, event, self }) => {
      if (event.type !== 'call.settled') return;
      const reply = replyTo(event.call, event.body);
      const target = event.call.replyTo ?? self._parent;
      if (target === undefined) enqueue.emit(reply);
      else enqueue.sendTo(target, reply);
    }),
    refuseClosed: enqueueActions(({ enqueue, event, self }) => {
      if (event.type !== 'schedule.call') return;
      const closed = new ScheduleError('internal_error', 'The schedule cluster host is closed.');
      const reply = replyTo(event, replyBody({ reject: closed }));
      const target = event.replyTo ?? self._parent;
      if (target === undefined) enqueue.emit(reply);
      else enqueue.sendTo(target, reply);
    }),
    notifyChange: enqueueActions(({ enqueue, event, self }) => {
      if (event.type !== 'cluster.changed') return;
      const ids = [...event.ids];
      if (self._parent !== undefined) enqueue.sendTo(self._parent, { type: 'schedule.changed', sessionId: event.sessionId, ids });
      enqueue.emit({ type: 'schedule/changed', sessionId: event.sessionId, ids });
    }),
  },
}).createMachine({
  id: 'cluster',
  context: ({ input }) => ({ input, service: null, waiting: [], closeAsked: false }),
  initial: 'opening',
  states: {
    opening: {
      description: 'Joins the cluster (takes this Host’s share of the shards); calls wait.',
      invoke: {
        src: 'joinCluster',
        input: ({ context }) => context.input,
        onDone: { target: 'running', actions: assign({ service: ({ event }) => event.output }) },
      },
      on: {
        'schedule.call': { actions: assign({ waiting: ({ context, event }) => [...context.waiting, event] }) },
        'schedule.close': { actions: assign({ closeAsked: true }) },
      },
    },
    running: {
      invoke: { id: 'calls', src: 'callRunner', input: ({ context }) => ({ service: context.service, waiting: context.waiting }) },
      on: {
        'call.settled': { actions: 'reply' },
        'cluster.changed': { actions: 'notifyChange' },
      },
      initial: 'open',
      states: {
        open: {
          description: 'Each call goes to the cluster service as it arrives and is answered when it settles.',
          entry: assign({ waiting: [] }),
          always: { guard: ({ context }) => context.closeAsked, target: 'draining', actions: sendTo('calls', { type: 'calls.drain' }) },
          on: {
            'schedule.call': { actions: sendTo('calls', ({ event }) => event) },
            'schedule.close': { target: 'draining', actions: sendTo('calls', { type: 'calls.drain' }) },
          },
        },
        draining: {
          description: 'Closing: the calls in progress finish; new ones are refused.',
          on: { 'schedule.call': { actions: 'refuseClosed' }, 'calls.drained': { target: '#cluster.closing' } },
        },
      },
    },
    closing: {
      description: 'Leaves the cluster: every shard handed back after its delivery in flight.',
      invoke: { src: 'leaveCluster', input: ({ context }) => context.service, onDone: { target: 'closed' } },
      on: { 'schedule.call': { actions: 'refuseClosed' } },
    },
    closed: { type: 'final' },
  },
});

export type ClusterSupervisor = typeof clusterSupervisor;

// A Host built on XState embeds the scheduler as a child actor: it invokes `scheduleSupervisor`
// with its ports, offers the tools to its model, turns the model's tool calls (and its own UI's
// pause button) into `schedule.call` events, keeps the `schedule.reply` answers and
// `schedule.changed` notices, and sends `schedule.close` on shutdown. Each reply names the
// operation of its call (`op`): narrowed by `op`, `ok` and `isRefusal`, its `value` is that
// operation's answer; a refusal written for the model is `{code, message}`, and a call that could
// not run answers `ok: false` with `error: {code, message}` — no cast. Reminders reach the Sessions through
// the `sessions` port. (Type-checked by the typecheck and `npm run test:package`; run by
// test/machines/xstateHost.test.ts.)
import { type ScheduleView, TOOL_DEFINITIONS, type ToolDefinition } from 'agent-schedule';
import {
  isRefusal,
  type Refusal,
  type ScheduleChangedEvent,
  type ScheduleReplyError,
  type ScheduleReplyEvent,
  type ScheduleSupervisorInput,
  scheduleSupervisor,
} from 'agent-schedule/machines';
import { assign, sendTo, setup } from 'xstate';

/** What the Host's machine hears: its model's tool calls, its UI, a shutdown, and the scheduler's answers. */
export type HostEvent =
  | { readonly type: 'model.toolCall'; readonly callId: string; readonly sessionId: string; readonly name: string; readonly args: unknown }
  | { readonly type: 'ui.pause'; readonly requestId: string; readonly sessionId: string; readonly id: string }
  | { readonly type: 'shutdown' }
  | ScheduleReplyEvent
  | ScheduleChangedEvent;

export interface HostContext {
  readonly ports: ScheduleSupervisorInput;
  /** The tools the Host offers its model. */
  readonly tools: readonly ToolDefinition[];
  /** The answer to each call, by request id (what the Host hands back to the model). */
  readonly answers: Readonly<Record<string, ScheduleReplyEvent>>;
  /** The tasks the Host's UI shows, by id, as the latest create, update or pause answered them. */
  readonly views: Readonly<Record<string, ScheduleView>>;
  /** Why each refused call was refused (or could not run), by request id. */
  readonly refusals: Readonly<Record<string, Refusal | ScheduleReplyError>>;
  readonly changes: readonly ScheduleChangedEvent[];
}

/** The task view a reply carries, when it is a successful create, update or pause. */
function viewIn(reply: ScheduleReplyEvent): ScheduleView | undefined {
  if (!reply.ok || (reply.op !== 'schedule_create' && reply.op !== 'schedule_update' && reply.op !== 'remote.pause')) return undefined;
  return isRefusal(reply.value) ? undefined : reply.value;
}

/** Why a call did not succeed: a refusal written for the model, or what kept it from running. */
function refusalIn(reply: ScheduleReplyEvent): Refusal | ScheduleReplyError | undefined {
  if (!reply.ok) return reply.error;
  return isRefusal(reply.value) ? reply.value : undefined;
}

export const hostMachine = setup({
  types: {
    context: {} as HostContext,
    input: {} as ScheduleSupervisorInput,
    events: {} as HostEvent,
  },
  actors: { schedule: scheduleSupervisor },
}).createMachine({
  id: 'host',
  context: ({ input }) => ({ ports: input, tools: TOOL_DEFINITIONS, answers: {}, views: {}, refusals: {}, changes: [] }),
  initial: 'running',
  states: {
    running: {
      invoke: {
        id: 'schedule',
        src: 'schedule',
        input: ({ context }) => context.ports,
        onDone: { target: 'stopped' },
        onError: { target: 'failed' },
      },
      on: {
        'model.toolCall': {
          actions: sendTo('schedule', ({ event }) => ({
            type: 'schedule.call' as const,
            requestId: event.callId,
            call: { kind: 'tool' as const, sessionId: event.sessionId, name: event.name, args: event.args },
          })),
        },
        'ui.pause': {
          actions: sendTo('schedule', ({ event }) => ({
            type: 'schedule.call' as const,
            requestId: event.requestId,
            call: { kind: 'remote' as const, method: 'pause' as const, request: { sessionId: event.sessionId, id: event.id } },
          })),
        },
        'schedule.reply': {
          actions: assign(({ context, event }) => {
            const view = viewIn(event);
            const refusal = refusalIn(event);
            return {
              answers: { ...context.answers, [event.requestId]: event },
              views: view === undefined ? context.views : { ...context.views, [view.id]: view },
              refusals: refusal === undefined ? context.refusals : { ...context.refusals, [event.requestId]: refusal },
            };
          }),
        },
        'schedule.changed': { actions: assign({ changes: ({ context, event }) => [...context.changes, event] }) },
        shutdown: { actions: sendTo('schedule', { type: 'schedule.close' as const }) },
      },
    },
    /** The scheduler drained its work and closed its storage. */
    stopped: { type: 'final' },
    /** The scheduler could not open its domain (or close its storage). */
    failed: { type: 'final' },
  },
});

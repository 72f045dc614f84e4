// A Host built on XState embeds the scheduler as a child actor: it invokes `scheduleSupervisor`
// with its ports, offers the tools to its model, turns the model's tool calls into
// `schedule.call` events, keeps the `schedule.reply` answers and `schedule.changed` notices, and
// sends `schedule.close` on shutdown. Reminders reach the Sessions through the `sessions` port.
// (Compiled by the typecheck; run by test/machines/xstateHost.test.ts; shown in README.)
import { TOOL_DEFINITIONS, type ToolDefinition } from 'agent-schedule';
import {
  type ScheduleChangedEvent,
  type ScheduleReplyEvent,
  type ScheduleSupervisorInput,
  scheduleSupervisor,
} from 'agent-schedule/machines';
import { assign, sendTo, setup } from 'xstate';

/** What the Host's machine hears: its model's tool calls, a shutdown, and the scheduler's answers. */
export type HostEvent =
  | { readonly type: 'model.toolCall'; readonly callId: string; readonly sessionId: string; readonly name: string; readonly args: unknown }
  | { readonly type: 'shutdown' }
  | ScheduleReplyEvent
  | ScheduleChangedEvent;

export interface HostContext {
  readonly ports: ScheduleSupervisorInput;
  /** The tools the Host offers its model. */
  readonly tools: readonly ToolDefinition[];
  /** The answer to each tool call, by call id (what the Host hands back to the model). */
  readonly answers: Readonly<Record<string, ScheduleReplyEvent>>;
  readonly changes: readonly ScheduleChangedEvent[];
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
  context: ({ input }) => ({ ports: input, tools: TOOL_DEFINITIONS, answers: {}, changes: [] }),
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
        'schedule.reply': { actions: assign({ answers: ({ context, event }) => ({ ...context.answers, [event.requestId]: event }) }) },
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

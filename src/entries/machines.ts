// `agent-schedule/machines`: the XState machines and the events they take, and `scheduleSupervisor`
// — the supervisor with its real effect actors — which a Host built on XState invokes as a child
// of its own system, over a storage of its own or, as one Host of a cluster, over a storage many
// Hosts share. An entry file above both layers: the machines never import the runtime that runs them.

export type {
  ActorEffect,
  CommandOutcome,
  DeliveredReminder,
  DeliveryFlushedEvent,
  DeliveryOutcome,
  DeliveryRequest,
  DomainChange,
  DueTasks,
  FlushedAttempt,
  MailboxCommand,
  Operation,
  RemoteMethod,
  ScheduleCall,
  ScheduleCallEvent,
  ScheduleChangedEvent,
  SupervisorEmitted,
  SupervisorRuntime,
} from '../../machines/events.ts';
export { SESSION_GROUPS, sessionActorId, sessionGroupId } from '../../machines/events.ts';
export type {
  ArchiveCall,
  ArchiveMethod,
  ArchiveReplies,
  RemoteCall,
  RemoteReplies,
  ReplyOf,
  ReplyValue,
  ToolCall,
  ToolCalls,
} from '../../machines/replies.ts';
export {
  callOp,
  isRefusal,
  type OpOf,
  type OpValue,
  type Refusal,
  type ScheduleOp,
  type ScheduleReply,
  type ScheduleReplyBody,
  type ScheduleReplyError,
  type ScheduleReplyEvent,
  type ScheduleReplyFailure,
  type ScheduleReplySuccess,
} from '../../machines/scheduleReply.ts';
export {
  type SessionGroupContext,
  type SessionGroupEvent,
  type SessionGroupMachine,
  type SessionRoute,
  sessionGroupMachine,
} from '../../machines/sessionGroupMachine.ts';
export {
  type AttemptReply,
  type AttemptRunEvent,
  type AttemptRunnerRef,
  type SessionContext,
  type SessionEvent,
  type SessionInput,
  type SessionMachine,
  sessionLogic,
  sessionMachine,
} from '../../machines/sessionMachine.ts';
export {
  type OpenedDomain,
  type SlotRunEvent,
  type SupervisorContext,
  type SupervisorEvent,
  type SupervisorInput,
  type SupervisorMachine,
  supervisorMachine,
  type TimerEvent,
} from '../../machines/supervisorMachine.ts';
export {
  TASK_GROUP_SIZE,
  type TaskGroupEvent,
  type TaskGroupMachine,
  taskGroupMachine,
} from '../../machines/taskGroupMachine.ts';
export { type TaskEvent, type TaskInput, type TaskMachine, taskLogic, taskMachine } from '../../machines/taskMachine.ts';
export {
  type ScheduleSupervisor,
  type ScheduleSupervisorInput,
  scheduleSupervisor,
} from '../supervisor.ts';

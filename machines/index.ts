// The public machines (`agent-schedule/machines`): a Host built on XState invokes
// `scheduleSupervisor` — the supervisor with its real effect actors — as a child of its own system,
// over a storage of its own or, as one Host of a cluster, over a storage many Hosts share. The one
// import of this folder from outside `xstate` and `src/domain`: the entry point re-exports the
// assembled supervisor (the machines themselves never import it).
export {
  type ScheduleSupervisor,
  type ScheduleSupervisorInput,
  scheduleSupervisor,
} from '../src/runtime/scheduleSupervisor.ts';
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
} from './events.ts';
export { SESSION_GROUPS, sessionActorId, sessionGroupId } from './events.ts';
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
} from './replies.ts';
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
} from './scheduleReply.ts';
export {
  type SessionGroupContext,
  type SessionGroupEvent,
  type SessionGroupMachine,
  type SessionRoute,
  type SessionSend,
  sessionGroupLogic,
  sessionGroupMachine,
} from './sessionGroupMachine.ts';
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
} from './sessionMachine.ts';
export {
  type OpenedDomain,
  type SlotRunEvent,
  type SupervisorContext,
  type SupervisorEvent,
  type SupervisorInput,
  type SupervisorMachine,
  supervisorMachine,
  type TimerEvent,
} from './supervisorMachine.ts';
export {
  TASK_GROUP_SIZE,
  type TaskGroupEvent,
  type TaskGroupMachine,
  taskGroupMachine,
} from './taskGroupMachine.ts';
export { type TaskEvent, type TaskInput, type TaskMachine, taskLogic, taskMachine } from './taskMachine.ts';

// The public machines (`agent-schedule/machines`): a Host built on XState can spawn the
// supervisor as a child of its own system, providing the effect actors the service provides.
export type {
  ActorEffect,
  CommandOutcome,
  DeliveredReminder,
  DeliveryOutcome,
  DeliveryRequest,
  DomainChange,
  DueTasks,
  MailboxCommand,
  Operation,
  RemoteMethod,
  SupervisorEmitted,
} from './events.ts';
export { SESSION_GROUPS, sessionActorId, sessionGroupId } from './events.ts';
export { type SessionGroupEvent, type SessionGroupMachine, type SessionRoute, sessionGroupMachine } from './sessionGroupMachine.ts';
export { type SessionContext, type SessionEvent, type SessionMachine, sessionMachine } from './sessionMachine.ts';
export {
  type OpenedDomain,
  type SlotRunEvent,
  type SupervisorContext,
  type SupervisorEvent,
  type SupervisorMachine,
  supervisorMachine,
} from './supervisorMachine.ts';
export {
  TASK_GROUP_SIZE,
  type TaskDelivery,
  type TaskGroupEvent,
  type TaskGroupMachine,
  taskGroupMachine,
} from './taskGroupMachine.ts';
export { type TaskEvent, type TaskInput, type TaskMachine, taskMachine } from './taskMachine.ts';

// A consumer of `agent-schedule/machines`, type-checked against the installed package by
// `npm run test:package`: the public machines and their types, as a Host built on XState sees them.
import {
  type DeliveryRequest,
  SESSION_GROUPS,
  type SupervisorMachine,
  sessionGroupId,
  supervisorMachine,
  TASK_GROUP_SIZE,
  taskMachine,
} from 'agent-schedule/machines';

const supervisor: SupervisorMachine = supervisorMachine;
export const machineIds: readonly string[] = [supervisor.id, taskMachine.id];
export const limits: { readonly groups: number; readonly tasksPerGroup: number } = {
  groups: SESSION_GROUPS,
  tasksPerGroup: TASK_GROUP_SIZE,
};
export const groupOf = (sessionId: string): string => sessionGroupId(sessionId);
export type Request = DeliveryRequest;

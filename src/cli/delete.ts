// `agent-schedule delete`: removes a task and its delivery history from a running Host.
import { pathOf } from './hostClient.ts';
import { HOST_OPTIONS_HELP, hostCommand, required } from './hostCommand.ts';

/** `agent-schedule delete`. */
export const deleteCommand = hostCommand({
  name: 'delete',
  summary: 'delete a task and its delivery history',
  help: `Usage: agent-schedule delete --session <id> --id <task> [--url <url>] [--json]

Deletes a task with its delivery history; it never fires again. Messages it already delivered
stay in the Session.

  --session <id>            the Session
  --id <task>               the task id
${HOST_OPTIONS_HELP}`,
  options: { session: { type: 'string' }, id: { type: 'string' } },
  async ask(values, host) {
    const id = required(values.id, 'id');
    const result = await host.send('DELETE', pathOf('api', 'sessions', required(values.session, 'session'), 'tasks', id));
    return { json: result, lines: [`deleted ${id}`] };
  },
});

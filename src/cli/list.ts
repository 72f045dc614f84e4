// `agent-schedule list --session <id>`: the active tasks of one Session of a running Host.
import type { ScheduleView } from '../domain/tasks/types.ts';
import { pathOf } from './hostClient.ts';
import { HOST_OPTIONS_HELP, hostCommand, required } from './hostCommand.ts';
import { taskLines, viewLine } from './taskTable.ts';

/** `agent-schedule list`. */
export const listCommand = hostCommand({
  name: 'list',
  summary: "list a Session's active tasks",
  help: `Usage: agent-schedule list --session <id> [--url <url>] [--json]

Lists the active tasks of one Session, soonest first.

  --session <id>            the Session
${HOST_OPTIONS_HELP}`,
  options: { session: { type: 'string' } },
  async ask(values, host) {
    const sessionId = required(values.session, 'session');
    const views = (await host.get(pathOf('api', 'sessions', sessionId, 'tasks'))) as ScheduleView[];
    return { json: views, lines: taskLines(views.map((view) => viewLine(sessionId, view))) };
  },
});

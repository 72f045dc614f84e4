// `agent-schedule create`: creates a task in a Session of a running Host, exactly as the Session
// would by calling `schedule_create`. Prints the new task (or its JSON with --json).
import type { ScheduleView } from '../domain/tasks/types.ts';
import { pathOf } from './hostClient.ts';
import { HOST_OPTIONS_HELP, hostCommand, required } from './hostCommand.ts';
import { taskLines, viewLine } from './taskTable.ts';
import { selectorOf, TIMING_HELP, TIMING_OPTIONS } from './timingFlags.ts';

/** `agent-schedule create`. */
export const createCommand = hostCommand({
  name: 'create',
  summary: 'create a task in a Session of a running Host',
  help: `Usage: agent-schedule create --session <id> --title <text> --prompt <text> <timing> [--url <url>] [--json]

Creates a reminder in a Session of a running Host (the schedule_create tool).

  --session <id>            the Session the reminder belongs to
  --title <text>            a short name, 1-120 characters
  --prompt <text>           the instruction delivered when it is due

${TIMING_HELP}

${HOST_OPTIONS_HELP}`,
  options: { ...TIMING_OPTIONS, session: { type: 'string' }, title: { type: 'string' }, prompt: { type: 'string' } },
  async ask(values, host) {
    const sessionId = required(values.session, 'session');
    const args = { title: required(values.title, 'title'), prompt: required(values.prompt, 'prompt'), ...selectorOf(values) };
    const view = (await host.send('POST', pathOf('api', 'sessions', sessionId, 'tools', 'schedule_create'), args)) as ScheduleView;
    return { json: view, lines: taskLines([viewLine(sessionId, view)]) };
  },
});

// `agent-schedule pause`, `resume` and `run-now`: the run state of one active task of a running
// Host. A paused task keeps its record and is never delivered until it is resumed or run now; a
// recurring task resumed after its target passed moves to its first target after now (the
// occurrences missed while paused are not delivered). Run now asks for one extra delivery as soon
// as the Session can take it; its receipt says `trigger: "manual"`. Each answers the task's view.
import type { ScheduleView } from '../domain/tasks/types.ts';
import type { HostClient } from './hostClient.ts';
import { pathOf } from './hostClient.ts';
import { HOST_OPTIONS_HELP, hostCommand, type OptionValues, required } from './hostCommand.ts';

const TASK_OPTIONS = { session: { type: 'string' }, id: { type: 'string' } } as const;

const TASK_OPTIONS_HELP = `  --session <id>            the Session
  --id <task>               the task id`;

const REFUSALS_HELP = 'Refused with schedule_not_found for a task the Host does not have, schedule_ended for one that ended.';

/** Posts `action` (with `body` when given) for the task named by `--session` and `--id`; resolves to its view. */
async function post(values: OptionValues<typeof TASK_OPTIONS>, host: HostClient, action: string, body?: unknown): Promise<ScheduleView> {
  const path = pathOf('api', 'sessions', required(values.session, 'session'), 'tasks', required(values.id, 'id'), action);
  return (await host.send('POST', path, body)) as ScheduleView;
}

/** `agent-schedule pause`. */
export const pauseCommand = hostCommand({
  name: 'pause',
  summary: 'pause a task: it is not delivered until resumed or run now',
  help: `Usage: agent-schedule pause --session <id> --id <task> [--note <text>] [--url <url>] [--json]

Pauses an active task: it keeps its record and next target but is not delivered until it is
resumed (agent-schedule resume) or run now (agent-schedule run-now). Pausing a paused task
changes nothing, except that --note replaces its note. ${REFUSALS_HELP}

${TASK_OPTIONS_HELP}
  --note <text>             why the task is paused (1-500 characters; shown by explain and the
                            task page, and dropped when the task is resumed)
${HOST_OPTIONS_HELP}`,
  options: { ...TASK_OPTIONS, note: { type: 'string' } },
  async ask(values, host) {
    const view = await post(values, host, 'pause', values.note === undefined ? undefined : { note: values.note });
    const note = view.pauseNote === undefined ? '' : `: ${view.pauseNote}`;
    return { json: view, lines: [`${view.id} is paused since ${view.pausedAt ?? '(unknown)'}${note}`] };
  },
});

/** `agent-schedule resume`. */
export const resumeCommand = hostCommand({
  name: 'resume',
  summary: 'resume a paused task',
  help: `Usage: agent-schedule resume --session <id> --id <task> [--url <url>] [--json]

Resumes a paused task. A one-shot keeps its target (delivered at once when it has passed); a
recurring task whose target passed moves to its first target after now, so the occurrences it
missed while paused are not delivered. Resuming a task that is not paused changes nothing.
${REFUSALS_HELP}

${TASK_OPTIONS_HELP}
${HOST_OPTIONS_HELP}`,
  options: TASK_OPTIONS,
  async ask(values, host) {
    const view = await post(values, host, 'resume');
    return { json: view, lines: [`${view.id} is resumed; next target ${view.scheduledAt}`] };
  },
});

/** `agent-schedule run-now`. */
export const runNowCommand = hostCommand({
  name: 'run-now',
  summary: 'deliver a task once now, besides its schedule',
  help: `Usage: agent-schedule run-now --session <id> --id <task> [--url <url>] [--json]

Asks for one extra delivery of an active task (paused or not) as soon as its Session can take
it; the receipt says "manual" (agent-schedule explain, history --json). A recurring task keeps
its next target; a one-shot ends with this delivery. A request still waiting is kept, not
doubled. ${REFUSALS_HELP}

${TASK_OPTIONS_HELP}
${HOST_OPTIONS_HELP}`,
  options: TASK_OPTIONS,
  async ask(values, host) {
    const sessionId = required(values.session, 'session');
    const view = await post(values, host, 'trigger');
    return { json: view, lines: [`${view.id} runs now: one delivery as soon as Session ${sessionId} can take it`] };
  },
});

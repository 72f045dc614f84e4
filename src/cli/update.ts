// `agent-schedule update`: edits a task through the remote namespace. It reads the task's
// current record and sends it as `expected`, so an edit made meanwhile by
// someone else (or a delivery) is refused with schedule_conflict instead of being overwritten.
import type { CatalogEntry, ScheduleView } from '../domain/tasks/types.ts';
import { UsageError } from './command.ts';
import { pathOf } from './hostClient.ts';
import { HOST_OPTIONS_HELP, hostCommand, required } from './hostCommand.ts';
import { taskLines, viewLine } from './taskTable.ts';
import { changeOf, TIMING_HELP, TIMING_OPTIONS } from './timingFlags.ts';

/** `agent-schedule update`. */
export const updateCommand = hostCommand({
  name: 'update',
  summary: "change a task's title, instruction or timing",
  help: `Usage: agent-schedule update --session <id> --id <task> [--title <text>] [--prompt <text>] [<timing>] [--url <url>] [--json]

Changes the title, instruction or timing of an active task; omitted fields stay. A new timing
computes the next target from now. Refused with schedule_conflict when the task changed since
it was read.

  --session <id>            the Session
  --id <task>               the task id
  --title <text>            new title
  --prompt <text>           new instruction

${TIMING_HELP.replace('Timing (exactly one):', 'New timing (at most one; not --after):')}

${HOST_OPTIONS_HELP}`,
  options: {
    ...TIMING_OPTIONS,
    session: { type: 'string' },
    id: { type: 'string' },
    title: { type: 'string' },
    prompt: { type: 'string' },
  },
  async ask(values, host) {
    const sessionId = required(values.session, 'session');
    const id = required(values.id, 'id');
    const change = changeOf(values);
    const edits = {
      ...(values.title === undefined ? {} : { title: values.title }),
      ...(values.prompt === undefined ? {} : { prompt: values.prompt }),
      ...(change === undefined ? {} : { change }),
    };
    if (Object.keys(edits).length === 0) throw new UsageError('Nothing to change: give --title, --prompt or a timing.');
    const entry = (await host.get(pathOf('api', 'sessions', sessionId, 'tasks', id))) as CatalogEntry;
    const view = (await host.send('PATCH', pathOf('api', 'sessions', sessionId, 'tasks', id), {
      expected: entry.record,
      ...edits,
    })) as ScheduleView;
    return { json: view, lines: taskLines([viewLine(sessionId, view)]) };
  },
});

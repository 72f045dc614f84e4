// `agent-schedule bulk <pause|resume|trigger>`: one action over many tasks of a running Host
// (`POST /api/bulk`) — the tasks a catalog filter selects (--session, --state, --kind, --text; or
// --all for every task), or tasks of one Session listed with --id. The Host applies it in batches
// while deliveries go on, and answers how many tasks matched, how many it changed and why it
// skipped the others; that answer is printed as one line (`paused 41 of 41`), or as JSON.
import type { BulkResult } from '../domain/tasks/bulk.ts';
import { type CliIo, type Command, UsageError } from './command.ts';
import { HOST_OPTIONS_HELP, hostCommand } from './hostCommand.ts';

const ACTIONS = ['pause', 'resume', 'trigger'] as const;
type Action = (typeof ACTIONS)[number];

/** How the printed line names what was done. */
const DONE_WORD: Readonly<Record<Action, string>> = { pause: 'paused', resume: 'resumed', trigger: 'ran now' };

/** `--state` words that the catalog filter spells otherwise. */
const STATE_ALIASES: Readonly<Record<string, string>> = { ended: 'inactive' };

const OPTIONS = {
  session: { type: 'string' },
  state: { type: 'string' },
  kind: { type: 'string' },
  text: { type: 'string' },
  id: { type: 'string', multiple: true },
  note: { type: 'string' },
  all: { type: 'boolean' },
} as const;

/** Options of this command (and the Host options) that take a value. */
const VALUE_OPTIONS = new Set(['--session', '--state', '--kind', '--text', '--id', '--note', '--url']);

const HELP = `Usage: agent-schedule bulk <pause|resume|trigger> [--session <id>] [--state <state>] [--kind <kind>]
                           [--text <words>] [--id <task> ...] [--all] [--note <text>] [--url <url>] [--json]

Pauses, resumes or runs now (trigger; a failing task is retried now) many tasks at once: the
tasks the filter selects when the command runs (filters combine with "and"), or the tasks listed
with --id (they need --session). The Host changes them in batches while deliveries go on, and
prints how many it changed of those that matched, with why it skipped the others
(already_paused, not_paused, schedule_ended, schedule_not_found, ...).

  --session <id>            only this Session
  --state <state>           active, scheduled, overdue, paused, failing, or inactive (also: ended)
  --kind <kind>             after, at, every, daily, weekly or cron
  --text <words>            in the title, prompt, task id or Session id (any case)
  --id <task> ...           these tasks of --session (repeat --id, or list ids after one --id)
  --all                     every task (required when no filter and no --id is given)
  --note <text>             with pause: why the tasks are paused (1-500 characters)
${HOST_OPTIONS_HELP}`;

/**
 * The action word and the options: the first argument that is not an option or an option's value
 * is the action; ids listed after one `--id` become one `--id` each.
 */
function splitAction(argv: readonly string[]): { action: string | undefined; options: string[] } {
  let action: string | undefined;
  const options: string[] = [];
  let listingIds = false;
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] as string;
    if (token.startsWith('-')) {
      listingIds = token === '--id';
      options.push(token);
      if (VALUE_OPTIONS.has(token) && i + 1 < argv.length) options.push(argv[++i] as string);
    } else if (listingIds) options.push('--id', token);
    else if (action === undefined) action = token;
    else throw new UsageError(`Unexpected argument ${JSON.stringify(token)}: give one action, then options.`);
  }
  return { action, options };
}

/** One line of the answer: `paused 39 of 41 (skipped: 2 already_paused: sch_3, sch_9)`. */
export function bulkLine(result: BulkResult): string {
  const head = `${DONE_WORD[result.action]} ${result.done} of ${result.matched}`;
  if (result.skipped.length === 0) return head;
  const reasons = result.skipped.map((skip) => {
    const more = skip.count > skip.ids.length ? ', …' : '';
    return `${skip.count} ${skip.code}: ${skip.ids.join(', ')}${more}`;
  });
  return `${head} (skipped: ${reasons.join('; ')})`;
}

/** The command for one action. */
const actionCommand = (action: Action): Command =>
  hostCommand({
    name: 'bulk',
    summary: '',
    help: HELP,
    options: OPTIONS,
    async ask(values, host) {
      const ids = values.id ?? [];
      const filtered = values.session !== undefined || values.state !== undefined || values.kind !== undefined || values.text !== undefined;
      if (ids.length > 0 && (values.state !== undefined || values.kind !== undefined || values.text !== undefined || values.all === true))
        throw new UsageError('Give --id (with --session) or filters (--state, --kind, --text, --all), not both.');
      if (ids.length > 0 && values.session === undefined) throw new UsageError('--id needs --session: the Session of the tasks.');
      if (ids.length === 0 && !filtered && values.all !== true)
        throw new UsageError('Choose tasks: give a filter, --id, or --all for every task.');
      const filter = {
        ...(values.session === undefined ? {} : { sessionId: values.session }),
        ...(values.state === undefined ? {} : { status: STATE_ALIASES[values.state] ?? values.state }),
        ...(values.kind === undefined ? {} : { kind: values.kind }),
        ...(values.text === undefined ? {} : { text: values.text }),
      };
      const selection = ids.length > 0 ? { tasks: ids.map((id) => ({ sessionId: values.session, id })) } : { filter };
      const body = { action, ...(values.note === undefined ? {} : { note: values.note }), ...selection };
      const result = (await host.send('POST', '/api/bulk', body)) as BulkResult;
      return { json: result, lines: [bulkLine(result)] };
    },
  });

/** `agent-schedule bulk`. */
export const bulkCommand: Command = {
  name: 'bulk',
  summary: 'pause, resume or run now many tasks at once, by filter or by id',
  help: HELP,
  async run(argv: readonly string[], io: CliIo): Promise<number> {
    const { action, options } = splitAction(argv);
    if (options.includes('--help') || options.includes('-h')) {
      io.out(HELP);
      return 0;
    }
    if (action === undefined) throw new UsageError('Give the action: agent-schedule bulk <pause|resume|trigger> [options].');
    if (!(ACTIONS as readonly string[]).includes(action)) {
      throw new UsageError(`Unknown action ${JSON.stringify(action)}: use pause, resume or trigger.`);
    }
    return actionCommand(action as Action).run(options, io);
  },
};

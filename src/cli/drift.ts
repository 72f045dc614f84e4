// `agent-schedule drift` and `agent-schedule reanchor`: the wall-clock targets that the running
// Host's time-zone data no longer yields (the first 50 and their number unless asked for more:
// after a zone rule change a large schedule can have tens of thousands), and moving them to
// their rule's next occurrence.
import type { DriftReport } from '../domain/time/drift.ts';
import { UsageError } from './command.ts';
import { pathOf } from './hostClient.ts';
import { HOST_OPTIONS_HELP, hostCommand, required } from './hostCommand.ts';
import { wholeNumber } from './parseOptions.ts';
import { formatTable } from './table.ts';

/** How many drifted targets `drift` lists unless told otherwise: a screenful, not every one of thousands. */
const DEFAULT_LIMIT = 50;

/** `agent-schedule drift`. */
export const driftCommand = hostCommand({
  name: 'drift',
  summary: 'list targets the time-zone data in use no longer yields',
  help: `Usage: agent-schedule drift [--limit <n> | --all] [--url <url>] [--json]

Lists the active daily, weekly and cron tasks whose committed target is not an occurrence of
their rule under the time-zone data the Host uses (rules change when a country moves or drops
daylight saving time), with the target's local time and the rule's nearest occurrence, soonest
target first, and how many there are in all. Such targets are never moved on their own;
\`agent-schedule reanchor\` moves them.

  --limit <n>               list the first n, 1-500 (default ${DEFAULT_LIMIT})
  --all                     list every drifted target
${HOST_OPTIONS_HELP}`,
  options: { limit: { type: 'string' }, all: { type: 'boolean' } },
  async ask(values, host) {
    if (values.all === true && values.limit !== undefined) throw new UsageError('Give --limit or --all, not both.');
    const limit = wholeNumber(values.limit, 'limit', 'a whole number from 1 to 500, such as --limit 50') ?? DEFAULT_LIMIT;
    const report = (await host.get(values.all === true ? '/api/drift' : `/api/drift?limit=${limit}`)) as DriftReport & { total?: number };
    const versions = `time-zone data ${report.tzdata}; schedule written with ${report.writtenWith ?? '(not recorded)'}`;
    const rows = report.tasks.map((t) => [t.sessionId, t.id, t.scheduledAt, t.local, t.occurrence ?? '(none)']);
    const lines = rows.length === 0 ? ['(no drifted targets)'] : formatTable(['SESSION', 'ID', 'TARGET', 'LOCAL', 'OCCURRENCE'], rows);
    const total = report.total ?? rows.length;
    const more =
      total > rows.length ? [`showing ${rows.length} of ${total.toLocaleString('en-US')} drifted targets; --all lists every one`] : [];
    return { json: report, lines: [versions, ...lines, ...more] };
  },
});

/** `agent-schedule reanchor`. */
export const reanchorCommand = hostCommand({
  name: 'reanchor',
  summary: "move drifted targets to their rule's next occurrence",
  help: `Usage: agent-schedule reanchor (--session <id> --id <task> | --all [--session <id>]) [--url <url>] [--json]

Moves a drifted target (see \`agent-schedule drift\`) to its rule's first occurrence after now
under the Host's time-zone data. A task whose target is not drifted is left as it is.

  --session <id>            the Session
  --id <task>               the task id
  --all                     every drifted task (of --session only, when given), in one write
${HOST_OPTIONS_HELP}`,
  options: { session: { type: 'string' }, id: { type: 'string' }, all: { type: 'boolean' } },
  async ask(values, host) {
    if (values.all === true) {
      if (values.id !== undefined) throw new UsageError('Give either --id or --all, not both.');
      const body = values.session === undefined ? { all: true } : { all: true, sessionId: values.session };
      const result = (await host.send('POST', '/api/reanchor', body)) as { reanchored: Array<{ id: string; scheduledAt: string }> };
      const lines =
        result.reanchored.length === 0
          ? ['(nothing to re-anchor)']
          : result.reanchored.map((v) => `re-anchored ${v.id} to ${v.scheduledAt}`);
      return { json: result, lines };
    }
    const id = required(values.id, 'id');
    const path = pathOf('api', 'sessions', required(values.session, 'session'), 'tasks', id, 'reanchor');
    const view = (await host.send('POST', path)) as { id: string; scheduledAt: string };
    return { json: view, lines: [`${view.id} is at ${view.scheduledAt}`] };
  },
});

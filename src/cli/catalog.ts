// `agent-schedule catalog`: one page of the tasks of every Session of a running Host, active and
// inactive, filtered and ordered by the Host's paged catalog (`GET /api/catalog?…`), with the
// cursor of the next page, under the counts of tasks per state that come with every page. The
// Host checks every filter value, so a bad one is its refusal.
import type { CatalogPage } from '../domain/reads/catalogPage.ts';
import type { StateCounts } from '../domain/reads/stateCounts.ts';
import type { CatalogEntry } from '../domain/tasks/types.ts';
import { UsageError } from './command.ts';
import { HOST_OPTIONS_HELP, hostCommand } from './hostCommand.ts';
import { wholeNumber } from './parseOptions.ts';
import { taskLines } from './taskTable.ts';

/** Page size when `--limit` is not given: a screenful, not the whole catalog. */
const DEFAULT_LIMIT = 50;

/** `--state` words that the catalog filter spells otherwise. */
const STATE_ALIASES: Readonly<Record<string, string>> = { ended: 'inactive' };

/** `agent-schedule catalog`. */
export const catalogCommand = hostCommand({
  name: 'catalog',
  summary: 'list a page of the tasks of every Session, with filters',
  help: `Usage: agent-schedule catalog [--session <id>] [--state <state>] [--kind <kind>] [--text <words>]
                              [--sort <order>] [--limit <n>] [--cursor <cursor>] [--url <url>] [--json]

Lists one page of the tasks of every Session, active and inactive (with its last delivery in
--json), and how to get the next page. Filters combine with "and". Above the page, how many
tasks the whole schedule has in each state (scheduled, overdue, paused, failing, ended; failing
overlaps the first three), and with --session that Session's; --json has them as "counts".

  --session <id>            only this Session
  --state <state>           active, scheduled, overdue, paused, failing, or inactive (also: ended)
  --status <state>          the same as --state
  --kind <kind>             after, at, every, daily, weekly or cron
  --text <words>            in the title, prompt, task id or Session id (any case)
  --sort <order>            next (soonest target first, the default), lastDelivery or title
  --limit <n>               page size, 1-500 (default ${DEFAULT_LIMIT})
  --cursor <cursor>         the page after this one; printed under each page that has a next one
                            (give the same filters and --sort)
${HOST_OPTIONS_HELP}`,
  options: {
    session: { type: 'string' },
    state: { type: 'string' },
    status: { type: 'string' },
    kind: { type: 'string' },
    text: { type: 'string' },
    sort: { type: 'string' },
    limit: { type: 'string' },
    cursor: { type: 'string' },
  },
  async ask(values, host) {
    if (values.state !== undefined && values.status !== undefined) throw new UsageError('Give --state or --status, not both.');
    const state = values.state ?? values.status;
    const limit = wholeNumber(values.limit, 'limit', 'a whole number from 1 to 500, such as --limit 50') ?? DEFAULT_LIMIT;
    const query = new URLSearchParams({ limit: String(limit) });
    if (values.session !== undefined) query.set('sessionId', values.session);
    if (state !== undefined) query.set('status', STATE_ALIASES[state] ?? state);
    if (values.kind !== undefined) query.set('kind', values.kind);
    if (values.text !== undefined) query.set('text', values.text);
    if (values.sort !== undefined) query.set('sort', values.sort);
    if (values.cursor !== undefined) query.set('cursor', values.cursor);
    const page = (await host.get(`/api/catalog?${query}`)) as CatalogPage<CatalogEntry>;
    return { json: page, lines: [...countLines(page, values.session), ...taskLines(page.entries), ...footer(page)] };
  },
});

/** `scheduled 9,012 · overdue 12 · paused 975 · failing 41 · ended 0`. */
export function formatCounts(counts: StateCounts): string {
  const states = ['scheduled', 'overdue', 'paused', 'failing', 'ended'] as const;
  return states.map((state) => `${state} ${counts[state].toLocaleString('en-US')}`).join(' · ');
}

/** The counts above a page: the whole schedule's, and first the Session's when the page is of one. */
function countLines(page: CatalogPage<CatalogEntry>, sessionId: string | undefined): string[] {
  // A Host of a version without the counts answers pages without them.
  const counts = page.counts as CatalogPage['counts'] | undefined;
  if (counts === undefined) return [];
  if (counts.session === undefined || sessionId === undefined) return [formatCounts(counts.all)];
  return [`Session ${sessionId}: ${formatCounts(counts.session)}`, `all Sessions: ${formatCounts(counts.all)}`];
}

/** How much of the catalog the page shows, and the option that gets the next page. */
function footer(page: CatalogPage<CatalogEntry>): string[] {
  if (page.total === 0) return [];
  const shown = `showing ${page.entries.length} of ${page.total.toLocaleString('en-US')} matching tasks`;
  return [page.nextCursor === undefined ? shown : `${shown}; next page: --cursor ${page.nextCursor}`];
}

// `agent-schedule history`: one page of a task's delivery history, newest first, with the
// cursor for the next older page.
import type { HistoryPage } from '../domain/reads/historyPage.ts';
import { pathOf } from './hostClient.ts';
import { HOST_OPTIONS_HELP, hostCommand, required } from './hostCommand.ts';
import { wholeNumber } from './parseOptions.ts';
import { formatTable } from './table.ts';

/** `agent-schedule history`. */
export const historyCommand = hostCommand({
  name: 'history',
  summary: "show a task's delivery history",
  help: `Usage: agent-schedule history --session <id> --id <task> [--limit <n>] [--before <message id>] [--url <url>] [--json]

Shows a task's delivery receipts, newest first.

  --session <id>            the Session
  --id <task>               the task id
  --limit <n>               page size, 1-100 (default 20)
  --before <message id>     start after this message (the "older" cursor of the previous page)
${HOST_OPTIONS_HELP}`,
  options: { session: { type: 'string' }, id: { type: 'string' }, limit: { type: 'string' }, before: { type: 'string' } },
  async ask(values, host) {
    const query = new URLSearchParams();
    const limit = wholeNumber(values.limit, 'limit', 'a whole number from 1 to 100, such as --limit 20');
    if (limit !== undefined) query.set('limit', String(limit));
    if (values.before !== undefined) query.set('before', values.before);
    const task = pathOf('api', 'sessions', required(values.session, 'session'), 'tasks', required(values.id, 'id'));
    const page = (await host.get(`${task}/history?${query}`)) as HistoryPage;
    const rows = page.records.map((r) => [r.scheduledAt, r.deliveredAt, r.messageId]);
    const lines = rows.length === 0 ? ['(no deliveries)'] : formatTable(['OCCURRENCE', 'DELIVERED', 'MESSAGE'], rows);
    return { json: page, lines: page.nextBefore === undefined ? lines : [...lines, `older deliveries: --before ${page.nextBefore}`] };
  },
});

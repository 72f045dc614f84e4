// `agent-schedule catalog`: every task of every Session of a running Host, active and inactive.
import type { CatalogEntry } from '../domain/types.ts';
import { HOST_OPTIONS_HELP, hostCommand } from './hostCommand.ts';
import { taskLines } from './taskTable.ts';

/** `agent-schedule catalog`. */
export const catalogCommand = hostCommand({
  name: 'catalog',
  summary: 'list every task of every Session, active and inactive',
  help: `Usage: agent-schedule catalog [--url <url>] [--json]

Lists every task of every Session, active and inactive (with its last delivery in --json).

${HOST_OPTIONS_HELP}`,
  options: {},
  async ask(_values, host) {
    const entries = (await host.get('/api/catalog')) as CatalogEntry[];
    return { json: entries, lines: taskLines(entries) };
  },
});

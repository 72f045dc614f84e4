// `agent-schedule tools`: the model tools a running Host offers, with --json their full
// definitions (name, description, JSON Schema) as a Host would hand them to a model.
import type { ToolDefinition } from '../tools/definitions.ts';
import { HOST_OPTIONS_HELP, hostCommand } from './hostCommand.ts';
import { formatTable } from './table.ts';

const firstSentence = (text: string): string => /^.*?\.(\s|$)/.exec(text)?.[0].trim() ?? text;

/** `agent-schedule tools`. */
export const toolsCommand = hostCommand({
  name: 'tools',
  summary: 'list the model tools and their JSON Schemas',
  help: `Usage: agent-schedule tools [--url <url>] [--json]

Lists the model tools of a running Host; --json prints their JSON Schemas.

${HOST_OPTIONS_HELP}`,
  options: {},
  async ask(_values, host) {
    const tools = (await host.get('/api/tools')) as ToolDefinition[];
    return {
      json: tools,
      lines: formatTable(
        ['TOOL', 'WHAT IT DOES'],
        tools.map((t) => [t.name, firstSentence(t.description)]),
      ),
    };
  },
});

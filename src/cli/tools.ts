// `agent-schedule tools`: the model tools of this package, with --json their full definitions
// (name, description, JSON Schema) as a Host hands them to a model. The definitions are static,
// part of the package (src/tools/definitions.ts), so no Host is asked: the command works offline.
// `--format` picks a provider's shape (mcp by default, which is what a Host's GET /api/tools
// answers). `--url` is accepted and ignored, so a command line that gives it to every command works.
import { TOOL_DEFINITIONS } from '../tools/definitions.ts';
import { isToolFormat, TOOL_FORMATS, toolDefinitionsFor } from '../tools/formats.ts';
import { type Command, UsageError } from './command.ts';
import { parseOptions } from './parseOptions.ts';
import { formatTable } from './table.ts';

const HELP = `Usage: agent-schedule tools [--json] [--format <format>]

Lists the model tools schedule_create, schedule_list, schedule_update and schedule_delete;
--json prints their full definitions (name, description, JSON Schema). No Host is needed: the
definitions are part of the package.

  --json                    print the definitions as JSON instead of a table
  --format <format>         with --json, the shape of one provider's API: ${TOOL_FORMATS.join(', ')}
                            (default mcp, as a Host's GET /api/tools answers)
  --url <url>               accepted and ignored: the tools are the same for every Host
  -h, --help                this help

Exit codes: 0 ok, 2 bad usage.`;

const OPTIONS = {
  json: { type: 'boolean' },
  format: { type: 'string' },
  url: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const firstSentence = (text: string): string => /^.*?\.(\s|$)/.exec(text)?.[0].trim() ?? text;

/** `agent-schedule tools`. */
export const toolsCommand: Command = {
  name: 'tools',
  summary: 'list the model tools and their JSON Schemas (no Host needed)',
  help: HELP,
  async run(argv, io) {
    const values = parseOptions(argv, OPTIONS);
    if (values.help === true) {
      io.out(HELP);
      return 0;
    }
    const format = values.format ?? 'mcp';
    if (!isToolFormat(format)) throw new UsageError(`--format must be one of ${TOOL_FORMATS.join(', ')}; got ${JSON.stringify(format)}.`);
    if (values.json === true) {
      io.out(JSON.stringify(toolDefinitionsFor(format), null, 2));
      return 0;
    }
    const rows = TOOL_DEFINITIONS.map((t) => [t.name, firstSentence(t.description)]);
    for (const line of formatTable(['TOOL', 'WHAT IT DOES'], rows)) io.out(line);
    return 0;
  },
};

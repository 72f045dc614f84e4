// Entry point of the `agent-schedule` command line: a table of subcommands, top-level help, and
// the mapping of failures to exit codes (0 ok, 1 a rejected value — printed as its error code and
// message —, 2 bad usage). New subcommands are added to COMMANDS. The module runs `main` itself
// when it is executed directly (`tsx src/cli/main.ts …`) and only exports it when imported (as
// bin/agent-schedule.js does).
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isScheduleError } from '../domain/errors.ts';
import { catalogCommand } from './catalog.ts';
import { CliFailure, type CliIo, type Command, processIo, UsageError } from './command.ts';
import { createCommand } from './create.ts';
import { deleteCommand } from './delete.ts';
import { historyCommand } from './history.ts';
import { listCommand } from './list.ts';
import { mcpCommand } from './mcp.ts';
import { previewCommand } from './preview.ts';
import { toolsCommand } from './tools.ts';
import { updateCommand } from './update.ts';

/** Every subcommand, in the order the help lists them. */
export const COMMANDS: readonly Command[] = [
  createCommand,
  listCommand,
  catalogCommand,
  historyCommand,
  updateCommand,
  deleteCommand,
  previewCommand,
  toolsCommand,
  mcpCommand,
];

function mainHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'Usage: agent-schedule <command> [options]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Every command but preview (and mcp --data) talks to a running Host (`npm start`; --url, default http://127.0.0.1:4319).',
    'Run `agent-schedule <command> --help` for the options of a command.',
  ].join('\n');
}

/** Runs the CLI with the arguments after the program name; resolves to the exit code. */
export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.err(mainHelp());
    return 2;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? COMMANDS.find((c) => c.name === rest[0]) : undefined;
    io.out(topic?.help ?? mainHelp());
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (command === undefined) {
    io.err(`Unknown command ${JSON.stringify(name)}.\n\n${mainHelp()}`);
    return 2;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`${error.message}\n\n${command.help}`);
      return 2;
    }
    if (isScheduleError(error) || error instanceof CliFailure) {
      io.err(`${error.code}: ${error.message}`);
      return 1;
    }
    io.err(`internal_error: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

/** True when this module is the program being run rather than an import. */
function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryPoint()) process.exitCode = await main(process.argv.slice(2));

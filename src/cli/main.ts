// Entry point of the `agent-schedule` command line: a table of subcommands, top-level help, and
// the mapping of failures to exit codes (0 ok, 1 a rejected value — printed as its error code and
// message —, 2 bad usage: one line and a hint to `--help`). With `--json` a failure is printed as
// `{"code", "message"}` on stdout instead, with the same exit code. The global options may come
// before the command name (globalOptions.ts). `--version` prints the
// package's version. New subcommands are added to COMMANDS. The module runs `main` itself
// when it is executed directly (`tsx src/cli/main.ts …`) and only exports it when imported (as
// bin/agent-schedule.js does).
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isScheduleError } from '../domain/errors.ts';
import { catalogCommand } from './catalog.ts';
import { CliFailure, type CliIo, type Command, processIo, UsageError } from './command.ts';
import { createCommand } from './create.ts';
import { deleteCommand } from './delete.ts';
import { driftCommand, reanchorCommand } from './drift.ts';
import { explainCommand } from './explain.ts';
import { type CommandLine, splitCommandLine } from './globalOptions.ts';
import { historyCommand } from './history.ts';
import { listCommand } from './list.ts';
import { mcpCommand } from './mcp.ts';
import { migrateCommand } from './migrate.ts';
import { previewCommand } from './preview.ts';
import { pauseCommand, resumeCommand, runNowCommand } from './runState.ts';
import { toolsCommand } from './tools.ts';
import { updateCommand } from './update.ts';
import { packageVersion } from './version.ts';

/** Every subcommand, in the order the help lists them. */
export const COMMANDS: readonly Command[] = [
  createCommand,
  listCommand,
  catalogCommand,
  historyCommand,
  explainCommand,
  updateCommand,
  pauseCommand,
  resumeCommand,
  runNowCommand,
  deleteCommand,
  driftCommand,
  reanchorCommand,
  previewCommand,
  toolsCommand,
  mcpCommand,
  migrateCommand,
];

function mainHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'Usage: agent-schedule <command> [options]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'preview runs offline, migrate talks to a PostgreSQL database and mcp --data to a data folder; every other command talks to a running Host (`npm start`; --url, default http://127.0.0.1:4319).',
    '--url and --json may come before or after the command.',
    'Run `agent-schedule <command> --help` for the options of a command; `agent-schedule --version` prints the version.',
  ].join('\n');
}

/** The code a usage error has in `--json` output. */
export const USAGE_ERROR_CODE = 'usage_error';

/** Prints a failure: `code: message` on stderr, or with `--json` `{code, message}` on stdout. */
function report(io: CliIo, json: boolean, code: string, message: string, hint?: string): void {
  if (json) io.out(JSON.stringify({ code, message }));
  else io.err(code === USAGE_ERROR_CODE ? `${message}${hint === undefined ? '' : `\n${hint}`}` : `${code}: ${message}`);
}

/** Runs the CLI with the arguments after the program name; resolves to the exit code. */
export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  const json = argv.includes('--json');
  const topHint = 'Run `agent-schedule --help` for the commands.';
  let line: CommandLine;
  try {
    line = splitCommandLine(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    report(io, json, USAGE_ERROR_CODE, error.message, topHint);
    return 2;
  }
  const { name, globals, rest } = line;
  if (name === undefined) {
    report(io, json, USAGE_ERROR_CODE, 'Give a command: agent-schedule <command> [options].', topHint);
    return 2;
  }
  if (name === '--version' || name === '-V' || name === 'version') {
    io.out(json ? JSON.stringify({ version: packageVersion() }) : packageVersion());
    return 0;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? COMMANDS.find((c) => c.name === rest[0]) : undefined;
    io.out(topic?.help ?? mainHelp());
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (command === undefined) {
    report(io, json, USAGE_ERROR_CODE, `Unknown command ${JSON.stringify(name)}.`, topHint);
    return 2;
  }
  try {
    return await command.run([...globals, ...rest], io);
  } catch (error) {
    if (error instanceof UsageError) {
      report(io, json, USAGE_ERROR_CODE, error.message, `Run \`agent-schedule ${command.name} --help\` for its options.`);
      return 2;
    }
    if (isScheduleError(error) || error instanceof CliFailure) {
      report(io, json, error.code, error.message);
      return 1;
    }
    report(io, json, 'internal_error', error instanceof Error ? error.message : String(error));
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

// Entry point of the `agent-schedule` command line: a table of subcommands, top-level help, and
// the mapping of failures to exit codes (0 ok, 1 a rejected value — printed as its error code and
// message —, 2 bad usage: one line and a hint to `--help`). With `--json` a failure is printed as
// `{"code", "message"}` on stdout instead, with the same exit code. The global options may come
// before the command name (globalOptions.ts). `--version` prints the
// package's version. New subcommands are added to COMMANDS. The module only exports `main`: the
// installed command (src/cli/bin.ts) and bin/agent-schedule.js in the repository run it.
import { isScheduleError } from '../domain/errors.ts';
import { CliFailure, type CliIo, type Command, processIo, UsageError } from './command.ts';
import { type CommandLine, splitCommandLine } from './globalOptions.ts';
import { packageVersion } from './version.ts';

/** A subcommand by name, and how to load it. */
export interface CommandEntry {
  readonly name: string;
  load(): Promise<Command>;
}

/**
 * Every subcommand, in the order the help lists them. A command's module (and what it imports)
 * is loaded only when that command runs, so `catalog` against a Host does not load the MCP SDK,
 * the PostgreSQL adapter or the recurrence engine the others need.
 */
export const COMMANDS: readonly CommandEntry[] = [
  { name: 'create', load: async () => (await import('./create.ts')).createCommand },
  { name: 'list', load: async () => (await import('./list.ts')).listCommand },
  { name: 'catalog', load: async () => (await import('./catalog.ts')).catalogCommand },
  { name: 'history', load: async () => (await import('./history.ts')).historyCommand },
  { name: 'explain', load: async () => (await import('./explain.ts')).explainCommand },
  { name: 'update', load: async () => (await import('./update.ts')).updateCommand },
  { name: 'pause', load: async () => (await import('./runState.ts')).pauseCommand },
  { name: 'resume', load: async () => (await import('./runState.ts')).resumeCommand },
  { name: 'run-now', load: async () => (await import('./runState.ts')).runNowCommand },
  { name: 'bulk', load: async () => (await import('./bulk.ts')).bulkCommand },
  { name: 'delete', load: async () => (await import('./delete.ts')).deleteCommand },
  { name: 'drift', load: async () => (await import('./drift.ts')).driftCommand },
  { name: 'reanchor', load: async () => (await import('./drift.ts')).reanchorCommand },
  { name: 'preview', load: async () => (await import('./preview.ts')).previewCommand },
  { name: 'tools', load: async () => (await import('./tools.ts')).toolsCommand },
  { name: 'mcp', load: async () => (await import('./mcp.ts')).mcpCommand },
  { name: 'migrate', load: async () => (await import('./migrate.ts')).migrateCommand },
];

/** The top-level help: it loads every command for its summary line. */
async function mainHelp(): Promise<string> {
  const commands = await Promise.all(COMMANDS.map((c) => c.load()));
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'Usage: agent-schedule <command> [options]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'preview and tools run offline, migrate talks to a PostgreSQL database and mcp --data to a data folder (mcp needs @modelcontextprotocol/sdk and zod installed); every other command talks to a running Host (`npm start`; --url, default http://127.0.0.1:4319).',
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
    io.out(topic === undefined ? await mainHelp() : (await topic.load()).help);
    return 0;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (entry === undefined) {
    report(io, json, USAGE_ERROR_CODE, `Unknown command ${JSON.stringify(name)}.`, topHint);
    return 2;
  }
  const command = await entry.load();
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

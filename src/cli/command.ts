// The shape every `agent-schedule` subcommand has, the output channels it writes to (injectable,
// so tests capture them), the usage error that makes the CLI print help and exit with 2, and the
// failure a Host command reports with its code and exit 1.

/** Where a command writes; each call is one line (the newline is added by the channel). */
export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

/** One subcommand: `agent-schedule <name> [options]`. */
export interface Command {
  readonly name: string;
  /** One line for the command list. */
  readonly summary: string;
  /** The full `--help` text. */
  readonly help: string;
  /** Runs the command; resolves to the exit code. Throws `UsageError` for bad usage, `ScheduleError` for rejected values. */
  run(argv: readonly string[], io: CliIo): Promise<number>;
}

/** Bad command-line usage: unknown or missing options. The CLI prints the message and help, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A refusal that is not a ScheduleError (a Host code, or no Host): printed as `code: message`, exit code 1. */
export class CliFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'CliFailure';
  }
}

/** The process's own stdout and stderr. */
export const processIo: CliIo = {
  out: (line) => void process.stdout.write(`${line}\n`),
  err: (line) => void process.stderr.write(`${line}\n`),
};

// The options every Host command takes (`--url <url>`, `--json`) may come before the command name
// as well as after it: `agent-schedule --url http://… list --session demo`. They are lifted off
// the front of the line and handed to the command with its own options, so the command alone
// decides whether it takes them (one that does not refuses them in its usual words).
import { UsageError } from './command.ts';

/** The global options that take a value; every other global option is a flag. */
const VALUED = new Set(['--url']);
const FLAGS = new Set(['--json']);

/** The command name, the global options given before it and the words after it. */
export interface CommandLine {
  /** The first word that is not a global option; undefined when there is none. */
  readonly name: string | undefined;
  /** The global options given before the name, as typed. */
  readonly globals: readonly string[];
  /** Everything after the name. */
  readonly rest: readonly string[];
}

/**
 * Splits `argv` into the global options before the command name, the name, and the words after
 * it. A command is run with the globals first, so a value given after the name wins. Any other option before the name is refused,
 * except what `main` reads itself in that place (`--help`, `-h`, `--version`, `-V`), which is
 * taken as the name.
 *
 * @throws UsageError for an unknown option before the name, or `--url` without a value.
 */
export function splitCommandLine(argv: readonly string[]): CommandLine {
  const lifted: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const token = argv[i] ?? '';
    const flag = token.split('=', 1)[0] ?? token;
    if (FLAGS.has(flag)) {
      // `--json=yes` too: the command refuses it in its own words.
      lifted.push(token);
    } else if (VALUED.has(flag)) {
      if (token.includes('=')) {
        lifted.push(token);
        continue;
      }
      const value = argv[i + 1];
      if (value === undefined || value.startsWith('-')) throw new UsageError(`${flag} needs a value, as in ${flag} http://127.0.0.1:4319.`);
      lifted.push(token, value);
      i += 1;
    } else if (token.startsWith('-') && !['--help', '-h', '--version', '-V'].includes(token)) {
      throw new UsageError(`Unknown option ${flag} before the command; the options every command takes there are --url and --json.`);
    } else {
      return { name: token, globals: lifted, rest: argv.slice(i + 1) };
    }
  }
  return { name: undefined, globals: lifted, rest: [] };
}

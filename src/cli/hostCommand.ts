// The frame every Host command shares: its options plus `--url`, `--json` and `--help`, a client
// of the Host at `--url`, and the answer printed either as the Host's JSON (`--json`) or as the
// command's human lines. A command only says what to ask and how to show the answer. A task the
// Host does not find is reported in one wording by every command (`notFound`).
import { CliFailure, type CliIo, type Command, UsageError } from './command.ts';
import { DEFAULT_HOST_URL, type HostClient, hostClient } from './hostClient.ts';
import { type OptionsConfig as Options, type ParsedValues, parseOptions } from './parseOptions.ts';

const HOST_OPTIONS = {
  url: { type: 'string', default: DEFAULT_HOST_URL },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The help lines for the options every Host command takes. */
export const HOST_OPTIONS_HELP = `  --url <url>               the Host (default ${DEFAULT_HOST_URL})
  --json                    print the Host's JSON answer instead of a table
  -h, --help                this help

Exit codes: 0 ok, 1 refused by the Host or no Host (the error code is printed), 2 bad usage.
With --json, an error is printed on stdout as {"code", "message"}.`;

/** The parsed option values of a command with options `T`. */
export type OptionValues<T extends Options> = ParsedValues<T & typeof HOST_OPTIONS>;

/** What a command shows: the Host's JSON answer, and the lines of its human form. */
export interface Answer {
  readonly json: unknown;
  readonly lines: readonly string[];
}

/** A Host command: `ask` talks to the Host and returns what to print. */
export function hostCommand<const T extends Options>(spec: {
  readonly name: string;
  readonly summary: string;
  readonly help: string;
  readonly options: T;
  ask(values: OptionValues<T>, host: HostClient): Promise<Answer>;
}): Command {
  return {
    name: spec.name,
    summary: spec.summary,
    help: spec.help,
    async run(argv: readonly string[], io: CliIo): Promise<number> {
      const values = parseOptions(argv, { ...spec.options, ...HOST_OPTIONS }) as OptionValues<T>;
      const common = values as { readonly help?: boolean; readonly json?: boolean; readonly url?: string };
      if (common.help === true) {
        io.out(spec.help);
        return 0;
      }
      let answer: Answer;
      try {
        answer = await spec.ask(values, hostClient(common.url ?? DEFAULT_HOST_URL));
      } catch (error) {
        const task = values as { readonly session?: string; readonly id?: string };
        if (error instanceof CliFailure && error.code === 'schedule_not_found' && task.id !== undefined)
          throw notFound(task.id, task.session);
        throw error;
      }
      if (common.json === true) io.out(JSON.stringify(answer.json, null, 2));
      else for (const line of answer.lines) io.out(line);
      return 0;
    },
  };
}

/** The value of a required option. */
export function required(value: string | undefined, name: string): string {
  if (value === undefined || value === '') throw new UsageError(`--${name} is required.`);
  return value;
}

/** The one wording of a task the Host does not have, in a Session or (without one) in any. */
export function notFound(id: string, sessionId?: string): CliFailure {
  const where = sessionId === undefined ? 'in any Session' : `in Session ${JSON.stringify(sessionId)}`;
  return new CliFailure('schedule_not_found', `No task ${JSON.stringify(id)} is stored ${where}.`);
}

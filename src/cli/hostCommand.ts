// The frame every Host command shares: its options plus `--url`, `--json` and `--help`, a client
// of the Host at `--url`, and the answer printed either as the Host's JSON (`--json`) or as the
// command's human lines. A command only says what to ask and how to show the answer.
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { type CliIo, type Command, UsageError } from './command.ts';
import { DEFAULT_HOST_URL, type HostClient, hostClient } from './hostClient.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

const HOST_OPTIONS = {
  url: { type: 'string', default: DEFAULT_HOST_URL },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The help lines for the options every Host command takes. */
export const HOST_OPTIONS_HELP = `  --url <url>               the Host (default ${DEFAULT_HOST_URL})
  --json                    print the Host's JSON answer instead of a table
  -h, --help                this help

Exit codes: 0 ok, 1 refused by the Host or no Host (the error code is printed), 2 bad usage.`;

/** The parsed option values of a command with options `T`. */
export type OptionValues<T extends Options> = ReturnType<
  typeof parseArgs<{ options: T & typeof HOST_OPTIONS; strict: true; allowPositionals: false }>
>['values'];

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
      let values: OptionValues<T>;
      try {
        values = parseArgs({ args: [...argv], options: { ...spec.options, ...HOST_OPTIONS }, strict: true, allowPositionals: false })
          .values as OptionValues<T>;
      } catch (error) {
        throw new UsageError(error instanceof Error ? error.message : String(error));
      }
      const common = values as { readonly help?: boolean; readonly json?: boolean; readonly url?: string };
      if (common.help === true) {
        io.out(spec.help);
        return 0;
      }
      const answer = await spec.ask(values, hostClient(common.url ?? DEFAULT_HOST_URL));
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

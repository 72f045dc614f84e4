// How every `agent-schedule` command reads its options: `node:util` parseArgs behind a check of
// its own, so a mistake gets one short message of this CLI (an unknown option, a missing value,
// an unexpected argument) instead of parseArgs' text, and a negative number after an option
// (`--after -5`) is read as that option's value, for the command to refuse with its own words.
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from './command.ts';

/** The options of a command, as parseArgs declares them. */
export type OptionsConfig = NonNullable<ParseArgsConfig['options']>;

/** The parsed values of options `T`. */
export type ParsedValues<T extends OptionsConfig> = ReturnType<
  typeof parseArgs<{ options: T; strict: true; allowPositionals: false }>
>['values'];

const NEGATIVE_NUMBER = /^-[\d.]/;

/** Checks `argv` against `options` and parses it; throws a UsageError with a short message. */
export function parseOptions<const T extends OptionsConfig>(argv: readonly string[], options: T): ParsedValues<T> {
  const args: string[] = [];
  const byShort = new Map(Object.entries(options).flatMap(([name, o]) => (o.short === undefined ? [] : [[o.short, name] as const])));
  for (let i = 0; i < argv.length; i += 1) {
    const token = argv[i] ?? '';
    const long = token.startsWith('--') ? token.slice(2) : undefined;
    const name =
      long === undefined ? (token.startsWith('-') && token.length === 2 ? byShort.get(token.slice(1)) : undefined) : long.split('=', 1)[0];
    if (name === undefined || name === '') {
      if (token.startsWith('-')) throw new UsageError(`Unknown option ${token}.`);
      throw new UsageError(`Unexpected argument ${JSON.stringify(token)}: each value follows its option, as in --name value.`);
    }
    const option = options[name];
    if (option === undefined) throw new UsageError(`Unknown option --${name}.`);
    const inline = long?.includes('=') === true;
    if (option.type === 'boolean') {
      if (inline) throw new UsageError(`--${name} takes no value.`);
      args.push(`--${name}`);
      continue;
    }
    if (inline) {
      args.push(token);
      continue;
    }
    const value = argv[i + 1];
    if (value === undefined || (value.startsWith('-') && !NEGATIVE_NUMBER.test(value)))
      throw new UsageError(
        `--${name} needs a value${value === undefined ? '' : `; to give one that starts with "-", write --${name}=${value}`}.`,
      );
    args.push(`--${name}=${value}`);
    i += 1;
  }
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values as ParsedValues<T>;
  } catch (error) {
    throw new UsageError(error instanceof Error ? (error.message.split('\n', 1)[0] ?? error.message) : String(error));
  }
}

/**
 * The value of a whole-number option (digits only), or undefined when it was not given; anything
 * else — a sign, a fraction, an exponent, a word — is a usage error saying what the option takes.
 */
export function wholeNumber(text: string | undefined, name: string, what: string): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d{1,15}$/.test(text)) throw new UsageError(`--${name} takes ${what}; got ${JSON.stringify(text.slice(0, 40))}.`);
  return Number(text);
}

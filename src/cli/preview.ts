// `agent-schedule preview`: the next occurrences of a rule, computed by the same domain code the
// scheduler uses, as an aligned table or as JSON. Rule values are validated like tool arguments
// (a rejected value exits 1 with its error code); unknown or missing options are usage errors.
import { parseAt } from '../domain/args/atSelector.ts';
import { normalizeTimeOfDay, normalizeWeekdays } from '../domain/args/fields.ts';
import { normalizeCronExpression, parseIntervalSeconds, requireTarget } from '../domain/args/ruleArgs.ts';
import { type PreviewOccurrence, previewOccurrences } from '../domain/reads/preview.ts';
import type { Rule } from '../domain/tasks/types.ts';
import { formatInstant, MAX_INSTANT_MS } from '../domain/time/instant.ts';
import { normalizeTimeZone } from '../domain/time/timeZone.ts';
import { type CliIo, type Command, UsageError } from './command.ts';
import { type ParsedValues, parseOptions, wholeNumber } from './parseOptions.ts';
import { formatTable } from './table.ts';

const DEFAULT_COUNT = 10;
const MAX_COUNT = 1000;

const HELP = `Usage: agent-schedule preview <rule> [--tz <zone>] [--from <instant>] [--count <n>] [--json]

Shows the next occurrences of a schedule rule, with the DST rules applied: a local time
that does not exist on a date is skipped (noted), one that exists twice fires once, at the
earlier instant (noted).

Rule (exactly one):
  --cron "<expression>"     5-field Vixie cron, e.g. "*/15 9-17 * * 1-5"   (needs --tz)
  --daily <time>            local time every day, HH:mm:ss[.SSS]           (needs --tz)
  --weekly <time> --weekdays <list>
                            local time on ISO weekdays, e.g. --weekdays 1,3 (1 = Monday; needs --tz)
  --every <seconds>         fixed interval of at least 60 seconds, shown in UTC

  For convenience --daily and --weekly also take HH:mm (seconds :00); the
  schedule_create tool itself requires HH:mm:ss.

Options:
  --tz <zone>               UTC or an IANA Area/Location name, e.g. Asia/Shanghai
  --from <instant>          RFC 3339 instant with offset to preview from (default: now);
                            occurrences are strictly after it
  --count <n>               how many occurrences, 1-${MAX_COUNT} (default ${DEFAULT_COUNT})
  --json                    print [{"at","local","offset","notes"}] instead of a table
  -h, --help                this help

Exit codes: 0 ok, 1 a rejected rule or instant (its error code is printed), 2 bad usage.`;

const OPTIONS = {
  cron: { type: 'string' },
  daily: { type: 'string' },
  weekly: { type: 'string' },
  every: { type: 'string' },
  weekdays: { type: 'string' },
  tz: { type: 'string' },
  from: { type: 'string' },
  count: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ParsedValues<typeof OPTIONS>;

const RULE_OPTIONS = ['cron', 'daily', 'weekly', 'every'] as const;

/** `agent-schedule preview`. */
export const previewCommand: Command = {
  name: 'preview',
  summary: 'show the next occurrences of a cron, daily, weekly or every rule',
  help: HELP,
  async run(argv: readonly string[], io: CliIo): Promise<number> {
    const values = readOptions(argv);
    if (values.help === true) {
      io.out(HELP);
      return 0;
    }
    const count = readCount(values.count);
    const rule = readRule(values);
    const fromMs = values.from === undefined ? Date.now() : parseAt(values.from, '--from');
    requireTarget(rule, fromMs);
    const occurrences = previewOccurrences(rule, fromMs, count);
    if (values.json === true) io.out(JSON.stringify(occurrences, null, 2));
    else printTable(io, describeRule(rule), fromMs, count, occurrences);
    return 0;
  },
};

function readOptions(argv: readonly string[]): Values {
  return parseOptions(argv, OPTIONS);
}

function readCount(text: string | undefined): number {
  const what = `a whole number from 1 to ${MAX_COUNT}`;
  const count = wholeNumber(text, 'count', what) ?? DEFAULT_COUNT;
  if (!(count >= 1 && count <= MAX_COUNT))
    throw new UsageError(`--count must be a whole number from 1 to ${MAX_COUNT}; got ${JSON.stringify(text)}.`);
  return count;
}

/** The rule named by exactly one rule option, validated with the same field rules as the tools. */
function readRule(values: Values): Rule {
  const given = RULE_OPTIONS.filter((name) => values[name] !== undefined);
  const kind = given[0];
  if (kind === undefined || given.length > 1) {
    throw new UsageError(
      `Give exactly one of --cron, --daily, --weekly, --every; ${given.length === 0 ? 'none was given' : `got ${given.map((n) => `--${n}`).join(' and ')}`}.`,
    );
  }
  if (values.weekdays !== undefined && kind !== 'weekly') throw new UsageError('--weekdays goes with --weekly only.');
  if (kind === 'every') {
    if (values.tz !== undefined) throw new UsageError('--tz does not apply to --every: a fixed interval is independent of any zone.');
    const seconds = wholeNumber(values.every, 'every', 'a whole number of seconds, at least 60, such as --every 600');
    return { kind: 'every', everySeconds: parseIntervalSeconds(seconds, '--every') };
  }
  if (values.tz === undefined) throw new UsageError(`--${kind} needs --tz <zone>, such as --tz UTC or --tz Asia/Shanghai.`);
  const timeZone = normalizeTimeZone(values.tz, '--tz');
  if (kind === 'cron') return { kind: 'cron', expression: normalizeCronExpression(values.cron, '--cron'), timeZone };
  const time = normalizeTimeOfDay(withSeconds(values[kind] ?? ''), `--${kind}`).text;
  if (kind === 'daily') return { kind: 'daily', time, timeZone };
  if (values.weekdays === undefined)
    throw new UsageError('--weekly needs --weekdays <list>, such as --weekdays 1,3 (1 = Monday ... 7 = Sunday).');
  const weekdays = values.weekdays.split(',').map((item) => (/^\s*\d+\s*$/.test(item) ? Number(item) : item.trim()));
  return { kind: 'weekly', time, timeZone, weekdays: normalizeWeekdays(weekdays, '--weekdays') };
}

/** `HH:mm` → `HH:mm:00`, the CLI's convenience; anything else is left for validation. */
const withSeconds = (time: string): string => (/^\d{2}:\d{2}$/.test(time) ? `${time}:00` : time);

function describeRule(rule: Rule): string {
  switch (rule.kind) {
    case 'cron':
      return `cron "${rule.expression}" in ${rule.timeZone}`;
    case 'daily':
      return `daily at ${rule.time} in ${rule.timeZone}`;
    case 'weekly':
      return `weekly at ${rule.time} on ISO weekdays ${rule.weekdays.join(',')} in ${rule.timeZone}`;
    case 'every':
      return `every ${rule.everySeconds} s`;
    default:
      return rule.kind;
  }
}

function printTable(io: CliIo, title: string, fromMs: number, count: number, rows: readonly PreviewOccurrence[]): void {
  io.out(`${title}, after ${formatInstant(fromMs)}:`);
  const cells = rows.map((r) => [r.at, r.local, r.offset, r.notes.join('; ')]);
  for (const line of formatTable(['AT (UTC)', 'LOCAL', 'OFFSET', 'NOTES'], cells)) io.out(line);
  if (rows.length < count) io.out(`(no further occurrences up to ${formatInstant(MAX_INSTANT_MS)})`);
}

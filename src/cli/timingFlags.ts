// The timing flags of `create` and `update`, turned into the selector `schedule_create` takes or
// the `change` a remote update takes. Only the shape is checked here (exactly one timing, --tz
// where a zone is needed, seconds as whole numbers); values are sent as typed and the Host
// validates them.
import { UsageError } from './command.ts';
import { wholeNumber } from './parseOptions.ts';

/** The timing options, as `parseArgs` declares them. */
export const TIMING_OPTIONS = {
  after: { type: 'string' },
  at: { type: 'string' },
  every: { type: 'string' },
  daily: { type: 'string' },
  weekly: { type: 'string' },
  weekdays: { type: 'string' },
  cron: { type: 'string' },
  tz: { type: 'string' },
} as const;

export const TIMING_HELP = `Timing (exactly one):
  --after <seconds>         once, this many seconds from now
  --at <instant>            once: RFC 3339 with offset (2030-01-02T09:00:00+08:00), or a local
                            date-time (2030-01-02T09:00) with --tz
  --every <seconds>         fixed rate, at least 60
  --daily <HH:mm[:ss]>      every day at a local time (needs --tz)
  --weekly <HH:mm[:ss]> --weekdays <list>
                            on ISO weekdays, e.g. --weekdays 1,3 (1 = Monday; needs --tz)
  --cron "<expression>"     5-field cron, e.g. "*/15 9-17 * * 1-5" (needs --tz)
  --tz <zone>               UTC or an IANA Area/Location name, e.g. Europe/Berlin`;

export type TimingValues = { readonly [K in keyof typeof TIMING_OPTIONS]?: string | undefined };

type Kind = 'after' | 'at' | 'every' | 'daily' | 'weekly' | 'cron';
const KINDS: readonly Kind[] = ['after', 'at', 'every', 'daily', 'weekly', 'cron'];
const HAS_OFFSET = /(Z|[+-]\d{2}:\d{2})$/i;

const number = (text: string): number | string => (/^\d+$/.test(text) ? Number(text) : text);
const withSeconds = (time: string): string => (/^\d{2}:\d{2}$/.test(time) ? `${time}:00` : time);

/** The one timing given, as `[selector name, value]`; undefined when none was given and `optional`. */
function timing(values: TimingValues, optional: boolean): [string, unknown] | undefined {
  const given = KINDS.filter((kind) => values[kind] !== undefined);
  const kind = given[0];
  if (given.length > 1) throw new UsageError(`Give one timing; got ${given.map((k) => `--${k}`).join(' and ')}.`);
  if (values.weekdays !== undefined && kind !== 'weekly') throw new UsageError('--weekdays goes with --weekly only.');
  if (kind === undefined) {
    if (values.tz !== undefined) throw new UsageError('--tz needs a timing: --at, --daily, --weekly or --cron.');
    if (optional) return undefined;
    throw new UsageError('Give a timing: one of --after, --at, --every, --daily, --weekly, --cron.');
  }
  const text = values[kind] ?? '';
  const tz = values.tz;
  const needsZone = kind === 'daily' || kind === 'weekly' || kind === 'cron' || (kind === 'at' && !HAS_OFFSET.test(text));
  if (needsZone && tz === undefined) throw new UsageError(`--${kind} needs --tz <zone>, such as --tz UTC or --tz Europe/Berlin.`);
  if (!needsZone && tz !== undefined) throw new UsageError(`--tz does not apply to --${kind} ${JSON.stringify(text)}.`);
  switch (kind) {
    case 'after':
      return ['after_seconds', wholeNumber(text, 'after', 'a whole number of seconds, such as --after 90')];
    case 'every':
      return ['every_seconds', wholeNumber(text, 'every', 'a whole number of seconds, at least 60, such as --every 600')];
    case 'at': {
      if (tz === undefined) return ['at', text];
      const [date = '', time = ''] = text.split('T');
      return ['at', { date, time: withSeconds(time), time_zone: tz }];
    }
    case 'daily':
      return ['daily', { time: withSeconds(text), time_zone: tz }];
    case 'weekly': {
      if (values.weekdays === undefined) throw new UsageError('--weekly needs --weekdays <list>, such as --weekdays 1,3 (1 = Monday).');
      const weekdays = values.weekdays.split(',').map((d) => number(d.trim()));
      return ['weekly', { time: withSeconds(text), time_zone: tz, weekdays }];
    }
    case 'cron':
      return ['cron', { expression: text, time_zone: tz }];
  }
}

/** The `schedule_create` selector of the flags, e.g. `{cron: {expression, time_zone}}`. */
export function selectorOf(values: TimingValues): Record<string, unknown> {
  const [name, value] = timing(values, false) ?? [];
  return name === undefined ? {} : { [name]: value };
}

/** The remote update `change` of the flags, or undefined when no timing was given. `--after` is refused. */
export function changeOf(values: TimingValues): Record<string, unknown> | undefined {
  if (values.after !== undefined) throw new UsageError('A task cannot be changed to --after; use --at with an instant.');
  const found = timing(values, true);
  if (found === undefined) return undefined;
  const [name, value] = found;
  if (name === 'at') return { kind: 'at', at: value };
  if (name === 'every_seconds') return { kind: 'every', every_seconds: value };
  return { kind: name, ...(value as object) };
}

// The reference Host's structured log: one JSON line per event on stdout (pino), with `level`,
// `time` (RFC 3339), `msg` and the event's fields: `sessionId`, `taskId` (or `taskIds`), and for
// a failure its `stage` (resolve, followup, flush, commit) and `cause` as a one-line message; the
// cause's stack is added only at `debug`. `LOG_LEVEL` picks the level (default info) and
// `LOG_FORMAT=pretty` prints one readable line per event for a terminal instead of JSON.
// `libraryLogger` turns the pino logger into the `Logger` the library takes, translating the data
// the library logs (Session id, task ids, idempotency keys, epoch-ms instants, a thrown cause).
import { type DestinationStream, type Logger as PinoLogger, pino } from 'pino';
import type { Logger } from '../src/index.ts';

/** The levels `LOG_LEVEL` accepts, most verbose first. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `json` (one JSON object per line, the default) or `pretty` (one readable line, for a terminal). */
export type LogFormat = 'json' | 'pretty';

export interface HostLogSettings {
  readonly level: LogLevel;
  readonly format: LogFormat;
}

/** A logger the library takes, with every optional level present. */
export type StructuredLogger = Required<Logger>;

/** The log settings of `LOG_LEVEL` and `LOG_FORMAT`; throws an Error naming a malformed variable. */
export function logSettingsFromEnv(env: NodeJS.ProcessEnv): HostLogSettings {
  const level = (env.LOG_LEVEL || 'info').toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level))
    throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got ${JSON.stringify(env.LOG_LEVEL?.slice(0, 100))}.`);
  const format = (env.LOG_FORMAT || 'json').toLowerCase();
  if (format !== 'json' && format !== 'pretty')
    throw new Error(`LOG_FORMAT must be json or pretty; got ${JSON.stringify(env.LOG_FORMAT?.slice(0, 100))}.`);
  return { level: level as LogLevel, format };
}

/** Anything with `write(line)`: stdout, or a test's collector. */
export interface LogSink {
  write(text: string): unknown;
}

/** The Host's pino logger, writing synchronously (so no line is lost at `process.exit`). */
export function createHostLog(settings: HostLogSettings, sink: LogSink = process.stdout): PinoLogger {
  const destination: DestinationStream =
    settings.format === 'pretty'
      ? { write: (line: string) => void sink.write(prettyLine(line)) }
      : { write: (line) => void sink.write(line) };
  return pino(
    {
      level: settings.level,
      base: null,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}

/**
 * Stages of the failures the library logs without a `stage` field, by its message (a failed
 * delivery attempt carries its own `stage`: resolve, followup, flush or commit).
 */
const STAGES: ReadonlyArray<readonly [RegExp, string]> = [
  [/^followup\(\) (returned|answered)/, 'record'],
  [/could not be saved/, 'commit'],
];

const INSTANT_FIELDS = ['occurrence', 'deliveredAt'] as const;

/** A thrown value as one short line: `Name: first line of the message` (and its code). */
export function shortCause(cause: unknown): string {
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    const first = cause.message.split('\n', 1)[0] ?? '';
    return `${cause.name}${typeof code === 'string' ? ` (${code})` : ''}: ${first}`.slice(0, 500);
  }
  return String(cause).split('\n', 1)[0]?.slice(0, 500) ?? '';
}

/** The fields of one library log call. */
function fieldsOf(msg: string, data: unknown, withStack: boolean): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  const stage = STAGES.find(([pattern]) => pattern.test(msg))?.[1];
  if (stage !== undefined) fields.stage = stage;
  if (data === undefined) return fields;
  if (typeof data !== 'object' || data === null) return { ...fields, data };
  for (const [key, value] of Object.entries(data)) {
    if (key === 'cause') {
      fields.cause = shortCause(value);
      if (withStack && value instanceof Error && value.stack !== undefined) fields.causeStack = value.stack;
    } else if ((key === 'ids' || key === 'taskIds') && Array.isArray(value)) {
      if (value.length === 1) fields.taskId = value[0];
      else fields.taskIds = value;
    } else if (key === 'id') fields.taskId = value;
    else if (key === 'keys' && Array.isArray(value)) {
      const ids = [...new Set(value.map((k) => String(k).split('@', 1)[0]))];
      if (ids.length === 1) fields.taskId = ids[0];
      else fields.taskIds = ids;
      fields.keys = value;
    } else if ((INSTANT_FIELDS as readonly string[]).includes(key) && typeof value === 'number') {
      fields[key] = new Date(value).toISOString();
    } else fields[key] = value;
  }
  const record = data as { occurrence?: unknown; deliveredAt?: unknown };
  if (typeof record.occurrence === 'number' && typeof record.deliveredAt === 'number')
    fields.latenessMs = record.deliveredAt - record.occurrence;
  return fields;
}

/** The library's `Logger` over a pino logger: every level, the data translated into log fields. */
export function libraryLogger(log: PinoLogger): StructuredLogger {
  const at =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (msg: string, data?: unknown): void => {
      if (!log.isLevelEnabled(level)) return;
      log[level](fieldsOf(msg, data, log.isLevelEnabled('debug')), msg);
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

const LEVEL_TAGS: Record<string, string> = { trace: 'TRACE', debug: 'DEBUG', info: 'INFO ', warn: 'WARN ', error: 'ERROR', fatal: 'FATAL' };

/** One JSON log line as `HH:mm:ss.SSS LEVEL msg key=value …` (UTC). */
export function prettyLine(line: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const { level, time, msg, causeStack, ...rest } = entry;
  const clock = typeof time === 'string' ? time.slice(11, 23) : '';
  const tag = LEVEL_TAGS[String(level)] ?? String(level);
  const pairs = Object.entries(rest).map(
    ([key, value]) => `${key}=${typeof value === 'string' && !/\s/.test(value) ? value : JSON.stringify(value)}`,
  );
  const stack = typeof causeStack === 'string' ? `\n${causeStack}` : '';
  return `${clock} ${tag} ${String(msg ?? '')}${pairs.length === 0 ? '' : ` ${pairs.join(' ')}`}${stack}\n`;
}

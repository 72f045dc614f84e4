// What the console's routes share: the options a Host gave `createConsole`, with the defaults
// filled in. Built once per console.
import type { Logger, ScheduleInspector } from '../index.ts';
import { ConsoleHttpError } from './failures.ts';
import type { ConsoleLimits } from './limits.ts';
import type { ConsoleMetricsSource, ConsoleService, ConsoleTranscripts } from './options.ts';
import { isConsoleSessionId, SESSION_ID_RULE } from './sessionId.ts';

export interface ConsoleContext {
  readonly service: ConsoleService;
  readonly inspector: ScheduleInspector | undefined;
  readonly transcripts: ConsoleTranscripts | undefined;
  readonly metrics: ConsoleMetricsSource | undefined;
  readonly logger: Logger;
  readonly limits: ConsoleLimits;
  /** The Host's time, epoch ms. */
  now(): number;
  /** Whether the routes accept `id` as a Session id. */
  isSessionId(id: string): boolean;
}

/** Throws `invalid_session_id` unless `ctx` accepts `id`. */
export function checkSessionId(ctx: Pick<ConsoleContext, 'isSessionId'>, id: string): void {
  if (ctx.isSessionId(id)) return;
  const rule = ctx.isSessionId === isConsoleSessionId ? ` ${SESSION_ID_RULE}` : '';
  throw new ConsoleHttpError('invalid_session_id', `${JSON.stringify(id.slice(0, 100))} is not a Session id.${rule}`);
}

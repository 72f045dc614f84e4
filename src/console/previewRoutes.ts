// Occurrence previews: the next occurrences of a recurring selector (for forms, before anything
// is saved) and of a stored task starting with its committed target, each with its DST notes.
import type { Hono } from 'hono';
import { previewOccurrences, ScheduleError } from '../index.ts';
import type { ConsoleContext } from './context.ts';
import { sendFailure } from './failures.ts';
import { PREVIEW_SELECTORS, previewRuleOf, previewRuleOfRecord } from './previewRule.ts';
import { readJsonObject } from './requestGuards.ts';

const DEFAULT_COUNT = 5;
const MAX_COUNT = 50;
const PREVIEW_MEMBERS = ['count', 'from', ...PREVIEW_SELECTORS];
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?(Z|[+-]\d{2}:\d{2})$/i;

function count(value: unknown): number {
  if (value === undefined) return DEFAULT_COUNT;
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_COUNT)
    throw new ScheduleError('invalid_rule', `count must be a whole number from 1 to ${MAX_COUNT}.`);
  return n;
}

function fromInstant(value: unknown, now: number): number {
  if (value === undefined) return now;
  const ms = typeof value === 'string' && RFC3339.test(value) ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms)) throw new ScheduleError('invalid_selector', 'from must be an RFC 3339 instant with an offset.');
  return ms;
}

/** Registers `POST /api/preview` and `GET /api/sessions/:id/tasks/:task/preview`. */
export function previewRoutes(app: Hono, ctx: ConsoleContext): void {
  app.post('/api/preview', async (c) => {
    const body = await readJsonObject(c);
    const extra = Object.keys(body).filter((key) => !PREVIEW_MEMBERS.includes(key));
    if (extra.length > 0) throw new ScheduleError('invalid_selector', `A preview does not accept ${extra.join(', ')}.`);
    const n = count(body.count);
    const from = fromInstant(body.from, ctx.now());
    const occurrences = previewOccurrences(previewRuleOf(body), from, n);
    if (occurrences.length === 0) throw new ScheduleError('time_out_of_range', 'This rule has no occurrence before the year 10000.');
    return c.json(occurrences);
  });

  app.get('/api/sessions/:id/tasks/:task/preview', async (c) => {
    const sessionId = c.req.param('id');
    const id = c.req.param('task');
    const n = count(c.req.query('count'));
    const entry = await ctx.service.remote.get({ sessionId, id });
    if ('code' in entry) return sendFailure(c, 'schedule_not_found', entry.message);
    if (entry.status === 'inactive') return c.json([]);
    const { rule, fromMs } = previewRuleOfRecord(entry.record);
    return c.json(previewOccurrences(rule, fromMs, n));
  });
}

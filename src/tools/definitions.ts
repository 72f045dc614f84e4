// The four model tools as a model sees them: names, descriptions and JSON Schemas. This is the one
// source every provider format is generated from (formats.ts). No schema has a combinator at its
// top level — model APIs refuse one there — so "exactly one timing" is said in the description
// and enforced by the handler, not by the schema. Every schema compiles under Ajv's strict mode.
// Descriptions are short: a model reads them on every request.
import type { JsonObjectSchema, JsonSchema } from './jsonSchema.ts';

/** A tool as offered to a model, in the MCP shape. */
export interface ToolDefinition {
  readonly name: ToolName;
  readonly description: string;
  readonly inputSchema: JsonObjectSchema;
}

export type ToolName = 'schedule_create' | 'schedule_list' | 'schedule_update' | 'schedule_delete';

/** A time zone; the rule for its value is said once, in schedule_create's description. */
const zone: JsonSchema = { type: 'string' };

const timeOfDay: JsonSchema = {
  type: 'string',
  pattern: '^\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,3})?$',
  description: '24-hour local time "HH:mm:ss".',
};

const weekdays: JsonSchema = {
  type: 'array',
  items: { type: 'integer', minimum: 1, maximum: 7 },
  minItems: 1,
  maxItems: 7,
  uniqueItems: true,
  description: '1 = Monday ... 7 = Sunday.',
};

const expression: JsonSchema = {
  type: 'string',
  description:
    '"minute hour day-of-month month day-of-week", e.g. "*/15 9-17 * * 1-5". Fields: *, N, A-B, */S, A-B/S or comma lists; 0 or 7 = Sunday; no names, L, W, #, ? or @macros. If a day field starts with *, both day fields must match; else either.',
};

/** `at`: an instant with an offset, or a local date and time in a zone. */
const at: JsonSchema = {
  anyOf: [
    { type: 'string', description: 'RFC 3339 with offset, e.g. "2030-01-02T09:00:00+08:00".' },
    {
      type: 'object',
      additionalProperties: false,
      required: ['date', 'time', 'time_zone'],
      description: 'A local date and time; one skipped by a daylight-saving change is refused.',
      properties: {
        date: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: '"YYYY-MM-DD".' },
        time: { type: 'string', pattern: '^\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,3})?)?$', description: '"HH:mm" or "HH:mm:ss".' },
        time_zone: zone,
      },
    },
  ],
};

/** The members of each recurring timing, shared by `schedule_create` and a `change`. */
const TIMING_MEMBERS = {
  daily: { time: timeOfDay, time_zone: zone },
  weekly: { time: timeOfDay, time_zone: zone, weekdays },
  cron: { expression, time_zone: zone },
} as const;

const closed = (properties: { [name: string]: JsonSchema }, description?: string): JsonSchema => ({
  type: 'object',
  additionalProperties: false,
  required: Object.keys(properties),
  properties,
  ...(description === undefined ? {} : { description }),
});

const prompt: JsonSchema = { type: 'string', minLength: 1, description: 'What to do when the reminder is due.' };
const title: JsonSchema = { type: 'string', minLength: 1, maxLength: 120, description: 'Short name, 1-120 characters.' };

const createSchema: JsonObjectSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['prompt', 'title'],
  properties: {
    prompt,
    title,
    after_seconds: { type: 'integer', minimum: 1, description: 'Once, this many seconds from now.' },
    at: { ...at, description: 'Once, at this future moment.' },
    every_seconds: { type: 'integer', minimum: 60, description: 'Repeat every this many seconds (at least 60), from now.' },
    daily: closed(TIMING_MEMBERS.daily, 'Every day at a local time.'),
    weekly: closed(TIMING_MEMBERS.weekly, 'On the listed weekdays at a local time.'),
    cron: closed(TIMING_MEMBERS.cron, 'On a 5-field cron schedule in local time.'),
  },
};

/** `schema` without its descriptions: a `change` repeats schedule_create's members, which the model has already read. */
function undescribed(schema: JsonSchema): JsonSchema {
  const { description: _, properties, items, anyOf, ...rest } = schema;
  const out: JsonSchema = { ...rest };
  if (properties !== undefined) out.properties = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, undescribed(v)]));
  if (items !== undefined) out.items = undescribed(items);
  if (anyOf !== undefined) out.anyOf = anyOf.map(undescribed);
  return out;
}

const changeBranch = (kind: string, members: { readonly [name: string]: JsonSchema }): JsonSchema =>
  undescribed(closed({ kind: { type: 'string', const: kind }, ...members }));

const changeSchema: JsonSchema = {
  description: 'New timing: kind plus the members schedule_create takes for it. One equal to the current timing changes nothing.',
  anyOf: [
    changeBranch('at', { at }),
    changeBranch('every', { every_seconds: { type: 'integer', minimum: 60 } }),
    changeBranch('daily', TIMING_MEMBERS.daily),
    changeBranch('weekly', TIMING_MEMBERS.weekly),
    changeBranch('cron', TIMING_MEMBERS.cron),
  ],
};

const taskId: JsonSchema = { type: 'string', minLength: 1, description: 'A reminder id from schedule_create or schedule_list.' };

const DST = 'A local time skipped by a daylight-saving change is skipped that day; one that occurs twice fires once, at the first.';

/** The four tools, in the order a model usually needs them. */
export const TOOL_DEFINITIONS: readonly ToolDefinition[] = [
  {
    name: 'schedule_create',
    description: `Create a reminder that comes back to this conversation as a user message when due, even after a restart. Give prompt, title and exactly one timing: after_seconds or at (once), every_seconds (fixed rate), or daily, weekly or cron (local times). time_zone is an IANA zone such as "Europe/Berlin", or "UTC"; no offsets or abbreviations. ${DST} Returns the reminder with its id and scheduledAt (next target, UTC).`,
    inputSchema: createSchema,
  },
  {
    name: 'schedule_list',
    description:
      "List this conversation's active reminders, soonest first: id, kind, title, prompt, scheduledAt (next target, UTC), state (scheduled, overdue or paused), pauseNote when a pause says why, timing fields, and failure when the latest delivery attempt failed.",
    inputSchema: { type: 'object', additionalProperties: false, properties: {} },
  },
  {
    name: 'schedule_update',
    description: `Change the title, prompt, timing or pause of one of this conversation's active reminders; its id and history stay. Omitted fields stay as they are. A timing change computes the next target from now, as create does; there is no after_seconds here, use kind "at". ${DST}`,
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['id'],
      properties: {
        id: taskId,
        title,
        prompt,
        change: changeSchema,
        paused: {
          type: 'boolean',
          description: 'true pauses the reminder (kept, never delivered); false resumes it, skipping occurrences missed while paused.',
        },
      },
    },
  },
  {
    name: 'schedule_delete',
    description:
      'Delete one of this conversation\'s reminders and its history; it will not fire again. Returns {id, deleted}; deleted is false, with code "schedule_not_found", when there is no such reminder here.',
    inputSchema: { type: 'object', additionalProperties: false, required: ['id'], properties: { id: taskId } },
  },
];

export const TOOL_NAMES: readonly ToolName[] = TOOL_DEFINITIONS.map((t) => t.name);

// The four model tools as a model sees them: names, descriptions and JSON Schemas (draft
// 2020-12). The descriptions say what each selector means, that time zones are always explicit,
// and how daylight-saving gaps and overlaps are handled.

/** A tool as offered to a model. */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: object;
}

export type ToolName = 'schedule_create' | 'schedule_list' | 'schedule_update' | 'schedule_delete';

const DRAFT = 'https://json-schema.org/draft/2020-12/schema';

const zone = {
  type: 'string',
  description:
    'Explicit IANA time zone such as "Asia/Shanghai", "Europe/Berlin" or "America/New_York", or "UTC". Offsets ("+08:00") and abbreviations ("EST", "GMT") are not accepted. Use the user\'s zone when you know it; otherwise ask.',
};

const timeOfDay = {
  type: 'string',
  pattern: '^\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,3})?$',
  description: 'Local 24-hour time "HH:mm:ss" (optionally with 1-3 fraction digits), e.g. "09:00:00".',
};

const weekdays = {
  type: 'array',
  items: { type: 'integer', minimum: 1, maximum: 7 },
  minItems: 1,
  maxItems: 7,
  uniqueItems: true,
  description: 'ISO weekdays: 1 = Monday ... 7 = Sunday, e.g. [1, 3] for Monday and Wednesday.',
};

const atInstant = {
  type: 'string',
  description:
    'An absolute instant in RFC 3339 with an explicit offset, e.g. "2030-01-02T09:00:00+08:00" or "2030-01-02T01:00:00Z". Must be in the future.',
};

const atLocal = {
  type: 'object',
  additionalProperties: false,
  required: ['date', 'time', 'time_zone'],
  properties: {
    date: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'Local calendar date "YYYY-MM-DD".' },
    time: { type: 'string', pattern: '^\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,3})?)?$', description: 'Local time "HH:mm" or "HH:mm:ss".' },
    time_zone: zone,
  },
  description:
    'A local date and time in an explicit zone. A time skipped by a daylight-saving change is rejected; a time that occurs twice means its earlier occurrence.',
};

const daily = {
  type: 'object',
  additionalProperties: false,
  required: ['time', 'time_zone'],
  properties: { time: timeOfDay, time_zone: zone },
};

const weekly = {
  type: 'object',
  additionalProperties: false,
  required: ['time', 'time_zone', 'weekdays'],
  properties: { time: timeOfDay, time_zone: zone, weekdays },
};

const cron = {
  type: 'object',
  additionalProperties: false,
  required: ['expression', 'time_zone'],
  properties: {
    expression: {
      type: 'string',
      description:
        'Five-field cron "minute hour day-of-month month day-of-week" (e.g. "*/15 9-17 * * 1-5"). Each field is *, N, A-B, */S or A-B/S, or a comma list of those; day-of-week 0 or 7 is Sunday. No names (MON, JAN), no L/W/#/?, no @daily macros, no seconds field. If day-of-month or day-of-week starts with *, both must match; otherwise either may.',
    },
    time_zone: zone,
  },
};

const DST_RULES =
  'Daylight saving: a local time that does not exist on a date (clocks jump forward) is skipped for that date, never moved; a local time that occurs twice (clocks fall back) fires once, at the earlier occurrence.';

const selectorDescriptions = {
  after_seconds: 'One-shot: fire once, this many seconds from now (a positive integer).',
  at: 'One-shot: fire once at this moment — an RFC 3339 string with an offset, or {date, time, time_zone}.',
  every_seconds:
    'Repeat at a fixed rate: every this many seconds (at least 60), counted from now. 86400 is every 24 hours, not "daily at a local time".',
  daily: 'Repeat every day at a local time in an explicit zone: {time, time_zone}.',
  weekly: 'Repeat on listed weekdays at a local time in an explicit zone: {time, time_zone, weekdays}.',
  cron: 'Repeat on a five-field cron schedule in an explicit zone: {expression, time_zone}.',
} as const;

const createSchema = {
  $schema: DRAFT,
  type: 'object',
  additionalProperties: false,
  required: ['prompt', 'title'],
  properties: {
    prompt: { type: 'string', minLength: 1, description: 'The instruction to deliver back to this conversation when the reminder is due.' },
    title: {
      type: 'string',
      minLength: 1,
      maxLength: 120,
      description: 'A short name for the reminder (1-120 characters), shown in task lists.',
    },
    after_seconds: { type: 'integer', minimum: 1, description: selectorDescriptions.after_seconds },
    at: { description: selectorDescriptions.at, oneOf: [atInstant, atLocal] },
    every_seconds: { type: 'integer', minimum: 60, description: selectorDescriptions.every_seconds },
    daily: { ...daily, description: selectorDescriptions.daily },
    weekly: { ...weekly, description: selectorDescriptions.weekly },
    cron: { ...cron, description: selectorDescriptions.cron },
  },
  oneOf: Object.keys(selectorDescriptions).map((selector) => ({ required: [selector] })),
};

const changeSchema = {
  description:
    'New timing. Its kind may differ from the current one. A change equivalent to the current timing keeps the current next target.',
  oneOf: [
    {
      type: 'object',
      additionalProperties: false,
      required: ['kind', 'at'],
      properties: { kind: { const: 'at' }, at: { oneOf: [atInstant, atLocal] } },
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['kind', 'every_seconds'],
      properties: { kind: { const: 'every' }, every_seconds: { type: 'integer', minimum: 60 } },
    },
    { ...daily, required: ['kind', ...daily.required], properties: { kind: { const: 'daily' }, ...daily.properties } },
    { ...weekly, required: ['kind', ...weekly.required], properties: { kind: { const: 'weekly' }, ...weekly.properties } },
    { ...cron, required: ['kind', ...cron.required], properties: { kind: { const: 'cron' }, ...cron.properties } },
  ],
};

const taskId = {
  type: 'string',
  minLength: 1,
  description: "The id of one of this conversation's reminders, as returned by schedule_create or schedule_list.",
};

/** The four tools, in the order a model usually needs them. */
export const TOOL_DEFINITIONS: readonly ToolDefinition[] = [
  {
    name: 'schedule_create',
    description: `Create a reminder that comes back to this conversation as a user message when it is due, even if the conversation is closed meanwhile. Give a prompt (what to do then), a title, and exactly one timing: after_seconds or at (once), every_seconds (fixed rate), daily, weekly or cron (local wall-clock times in an explicit IANA time zone). ${DST_RULES} Returns the reminder with its id and its next target (scheduledAt, UTC).`,
    inputSchema: createSchema,
  },
  {
    name: 'schedule_list',
    description:
      'List this conversation\'s active reminders, soonest first: id, kind, title, prompt, scheduledAt (next target, UTC), state ("scheduled", or "overdue" while waiting for delivery) and the timing fields.',
    inputSchema: { $schema: DRAFT, type: 'object', additionalProperties: false, properties: {} },
  },
  {
    name: 'schedule_update',
    description: `Change the title, prompt or timing of one of this conversation's active reminders, keeping its id and its delivery history. Omitted fields stay as they are; a title or prompt edit keeps the next target. A timing change ("change") computes the next target from now, as creating it would; the relative after_seconds timing cannot be set here — use kind "at". ${DST_RULES}`,
    inputSchema: {
      $schema: DRAFT,
      type: 'object',
      additionalProperties: false,
      required: ['id'],
      properties: {
        id: taskId,
        title: { type: 'string', minLength: 1, maxLength: 120, description: 'New title (1-120 characters).' },
        prompt: { type: 'string', minLength: 1, description: 'New instruction.' },
        change: changeSchema,
      },
    },
  },
  {
    name: 'schedule_delete',
    description:
      'Delete one of this conversation\'s reminders with its delivery history; it will not fire again. Messages it already delivered stay. Returns {id, deleted}; deleted is false with code "schedule_not_found" when there is no such reminder here.',
    inputSchema: { $schema: DRAFT, type: 'object', additionalProperties: false, required: ['id'], properties: { id: taskId } },
  },
];

export const TOOL_NAMES = TOOL_DEFINITIONS.map((t) => t.name) as readonly ToolName[];

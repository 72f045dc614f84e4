// Calls made in OpenAI's strict mode: the model sends every member of the strict schema, with
// null for those it does not use, and callTool(…, { format: 'openai-strict' }) must mean exactly
// what the plain call means. Every create and update case below runs twice — plain form on one
// service, strict form on another at the same instant — and both must answer the same value; the
// strict form is also checked to be valid under the strict schema, and the plain form under the
// plain one, so these are calls a model in each mode can actually make.
import { stripNulls } from '../../src/index.ts';
import { closeServices, openService, strictForm, T0, validatorFor } from './support.ts';

afterEach(closeServices);

type Args = Record<string, unknown>;
const base = { prompt: 'Stretch', title: 'Stretch' };

/** Create cases: the arguments, and whether a schema-following model can send them. */
const CREATES: Array<[string, Args, boolean]> = [
  ['after_seconds', { ...base, after_seconds: 90 }, true],
  ['at with an offset', { ...base, at: '2030-01-08T09:00:00+08:00' }, true],
  ['at in UTC', { ...base, at: '2030-01-08T01:00:00Z' }, true],
  ['a local at', { ...base, at: { date: '2030-01-08', time: '09:00', time_zone: 'Asia/Tokyo' } }, true],
  ['every_seconds', { ...base, every_seconds: 300 }, true],
  ['daily', { ...base, daily: { time: '09:30:00', time_zone: 'Europe/Berlin' } }, true],
  ['weekly', { ...base, weekly: { time: '09:00:00', time_zone: 'UTC', weekdays: [3, 1] } }, true],
  ['cron', { ...base, cron: { expression: '*/15 9-17 * * 1-5', time_zone: 'Asia/Shanghai' } }, true],
  ['two timings (refused: exactly one)', { ...base, after_seconds: 60, every_seconds: 60 }, true],
  ['no timing (refused)', { ...base }, true],
  ['an at in the past (not_future)', { ...base, at: '2029-12-31T00:00:00Z' }, true],
  ['an offset zone (invalid_time_zone)', { ...base, daily: { time: '09:00:00', time_zone: '+08:00' } }, true],
  ['a cron name (invalid_rule)', { ...base, cron: { expression: '0 9 * * MON', time_zone: 'UTC' } }, true],
  ['a local at in a DST gap (invalid_selector)', { ...base, at: { date: '2030-03-31', time: '02:30', time_zone: 'Europe/Berlin' } }, true],
  ['every_seconds under 60 (invalid_rule)', { ...base, every_seconds: 30 }, false],
  ['an empty title (invalid_prompt)', { prompt: 'p', title: '', after_seconds: 60 }, false],
];

/** Update cases for a task created as `every_seconds: 300`. */
const UPDATES: Array<[string, Args, boolean]> = [
  ['title only', { title: 'Walk' }, true],
  ['prompt only', { prompt: 'Walk around' }, true],
  ['title and prompt', { title: 'Walk', prompt: 'Walk around' }, true],
  ['change to at', { change: { kind: 'at', at: '2030-01-09T10:00:00Z' } }, true],
  ['change to a local at', { change: { kind: 'at', at: { date: '2030-01-09', time: '10:00:00', time_zone: 'America/New_York' } } }, true],
  ['change to every', { change: { kind: 'every', every_seconds: 3600 } }, true],
  ['change to daily', { change: { kind: 'daily', time: '07:00:00', time_zone: 'Asia/Kolkata' } }, true],
  ['change to weekly', { change: { kind: 'weekly', time: '18:00:00', time_zone: 'Europe/London', weekdays: [5] } }, true],
  ['change to cron', { change: { kind: 'cron', expression: '0 */2 * * *', time_zone: 'UTC' } }, true],
  ['an equal change (no-op)', { change: { kind: 'every', every_seconds: 300 } }, true],
  ['a title with a change', { title: 'Walk', change: { kind: 'daily', time: '07:00:00', time_zone: 'UTC' } }, true],
  ['a change to after (refused)', { change: { kind: 'after', after_seconds: 60 } }, false],
  ['an unknown zone (invalid_time_zone)', { change: { kind: 'daily', time: '07:00:00', time_zone: 'Mars/Olympus' } }, true],
  ['an at in the past (not_future)', { change: { kind: 'at', at: '2030-01-01T00:00:00Z' } }, true],
];

/** Runs `calls` on a fresh service in plain form and on another in strict form; answers both lists of results. */
async function twice(calls: Array<{ name: string; args: Args }>) {
  const plain = await openService(T0);
  const strict = await openService(T0);
  const plainResults: unknown[] = [];
  const strictResults: unknown[] = [];
  for (const { name, args } of calls) {
    plainResults.push(await plain.service.callTool('s1', name, args));
    strictResults.push(await strict.service.callTool('s1', name, strictForm(name, args), { format: 'openai-strict' }));
  }
  return { plainResults, strictResults, plain, strict };
}

describe('a strict-mode create means what the plain create means', () => {
  it.each(CREATES)('%s', async (_title, args, schemaValid) => {
    const strictArgs = strictForm('schedule_create', args);
    expect(Object.values(strictArgs).filter((v) => v === null).length).toBeGreaterThan(0);
    if (schemaValid) {
      const plainSchema = validatorFor('mcp', 'schedule_create');
      const strictSchema = validatorFor('openai-strict', 'schedule_create');
      // Two timings or none pass the schemas (they say "exactly one" in prose): the handler refuses them.
      expect(plainSchema(args), JSON.stringify(plainSchema.errors)).toBe(true);
      expect(strictSchema(strictArgs), JSON.stringify(strictSchema.errors)).toBe(true);
    }
    const { plainResults, strictResults, plain, strict } = await twice([{ name: 'schedule_create', args }]);
    expect(strictResults).toEqual(plainResults);
    expect(await strict.service.remote.catalog()).toEqual(await plain.service.remote.catalog());
  });

  it('the refusals keep their codes', async () => {
    const { strictResults } = await twice(CREATES.map(([, args]) => ({ name: 'schedule_create', args })));
    expect(strictResults.map((r) => (r as { code?: string }).code ?? (r as { kind: string }).kind)).toEqual([
      'after',
      'at',
      'at',
      'at',
      'every',
      'daily',
      'weekly',
      'cron',
      'invalid_selector',
      'invalid_selector',
      'not_future',
      'invalid_time_zone',
      'invalid_rule',
      'invalid_selector',
      'invalid_rule',
      'invalid_prompt',
    ]);
  });
});

describe('a strict-mode update means what the plain update means', () => {
  it.each(UPDATES)('%s', async (_title, edits, schemaValid) => {
    const plain = await openService(T0);
    const strict = await openService(T0);
    const task = { ...base, every_seconds: 300 };
    const created = await plain.service.callTool('s1', 'schedule_create', task);
    const createdStrict = await strict.service.callTool('s1', 'schedule_create', strictForm('schedule_create', task), {
      format: 'openai-strict',
    });
    expect(createdStrict).toEqual(created);
    await plain.clock.advance(61_000);
    await strict.clock.advance(61_000);
    const args = { id: (created as { id: string }).id, ...edits };
    const strictArgs = strictForm('schedule_update', args);
    if (schemaValid) {
      const plainSchema = validatorFor('mcp', 'schedule_update');
      const strictSchema = validatorFor('openai-strict', 'schedule_update');
      expect(plainSchema(args), JSON.stringify(plainSchema.errors)).toBe(true);
      expect(strictSchema(strictArgs), JSON.stringify(strictSchema.errors)).toBe(true);
    }
    const plainAnswer = await plain.service.callTool('s1', 'schedule_update', args);
    const strictAnswer = await strict.service.callTool('s1', 'schedule_update', strictArgs, { format: 'openai-strict' });
    expect(strictAnswer).toEqual(plainAnswer);
    expect(await strict.service.remote.catalog()).toEqual(await plain.service.remote.catalog());
  });

  it('the updates answer what each case expects', async () => {
    const { service, clock } = await openService(T0);
    const kinds: string[] = [];
    for (const [, edits] of UPDATES) {
      const created = (await service.callTool('s1', 'schedule_create', { ...base, every_seconds: 300 })) as { id: string };
      await clock.advance(1_000);
      const answer = (await service.callTool('s1', 'schedule_update', strictForm('schedule_update', { id: created.id, ...edits }), {
        format: 'openai-strict',
      })) as { code?: string; kind?: string };
      kinds.push(answer.code ?? answer.kind ?? '?');
    }
    expect(kinds).toEqual([
      'every',
      'every',
      'every',
      'at',
      'at',
      'every',
      'daily',
      'weekly',
      'cron',
      'every',
      'daily',
      'invalid_selector',
      'invalid_time_zone',
      'not_future',
    ]);
  });

  it('a strict update with every member null changes nothing', async () => {
    const { service } = await openService(T0);
    const created = (await service.callTool('s1', 'schedule_create', { ...base, daily: { time: '09:00:00', time_zone: 'UTC' } })) as {
      id: string;
    };
    const answer = await service.callTool(
      's1',
      'schedule_update',
      { id: created.id, title: null, prompt: null, change: null },
      { format: 'openai-strict' },
    );
    expect(answer).toEqual(created);
  });
});

describe('null without the strict format', () => {
  it('is an ordinary value, refused with the code of its field', async () => {
    const { service } = await openService(T0);
    const args = strictForm('schedule_create', { ...base, every_seconds: 300 });
    expect(await service.callTool('s1', 'schedule_create', args)).toMatchObject({ code: 'invalid_selector' });
    for (const format of ['mcp', 'anthropic', 'openai', 'openai-chat'] as const) {
      expect(await service.callTool('s1', 'schedule_create', args, { format })).toMatchObject({ code: 'invalid_selector' });
    }
    expect(await service.remote.catalog()).toEqual([]);
  });

  it('an unknown format is a TypeError and runs nothing', async () => {
    const { service } = await openService(T0);
    await expect(service.callTool('s1', 'schedule_create', { ...base, after_seconds: 60 }, { format: 'strict' as never })).rejects.toThrow(
      /unknown format "strict"/,
    );
    expect(await service.remote.catalog()).toEqual([]);
  });
});

describe('stripNulls', () => {
  it('drops null members at every level, keeps null array elements, and leaves its input unchanged', () => {
    const input = { a: null, b: { c: null, d: 1, e: [null, { f: null, g: 'x' }] }, h: 0, i: '', j: false };
    const snapshot = structuredClone(input);
    expect(stripNulls(input)).toEqual({ b: { d: 1, e: [null, { g: 'x' }] }, h: 0, i: '', j: false });
    expect(input).toEqual(snapshot);
  });

  it('keeps a "__proto__" member a member and never runs a getter', () => {
    const parsed = JSON.parse('{"__proto__": {"x": null}, "y": null}') as object;
    const out = stripNulls(parsed) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(['__proto__']);
    let ran = false;
    const hostile = {
      a: null,
      get b() {
        ran = true;
        return 1;
      },
    };
    expect(stripNulls(hostile)).toBe(hostile);
    expect(ran).toBe(false);
  });

  it('leaves non-plain values and very deep nesting as they are', () => {
    const date = new Date(0);
    expect(stripNulls(date)).toBe(date);
    expect(stripNulls(null)).toBe(null);
    expect(stripNulls('x')).toBe('x');
    let deep: unknown = { z: null };
    for (let i = 0; i < 10_000; i++) deep = { n: deep };
    expect(() => stripNulls(deep)).not.toThrow();
  });

  it('a hostile argument object in strict format is still an internal_error, as in plain format', async () => {
    const { service } = await openService(T0);
    const hostile = {
      ...base,
      get after_seconds(): number {
        throw new Error('getter exploded');
      },
    };
    const plain = await service.callTool('s1', 'schedule_create', hostile);
    const strict = await service.callTool('s1', 'schedule_create', hostile, { format: 'openai-strict' });
    expect(strict).toEqual(plain);
    expect(plain).toMatchObject({ code: 'internal_error' });
  });
});

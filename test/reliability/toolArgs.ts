// Generators of model-tool arguments for fuzzing: values of every type (nested objects, arrays,
// boxed values, maps, typed arrays, BigInt, symbols, functions, circular objects), numbers at the
// edges, unicode and huge strings, and — most of the time — objects shaped like real arguments of
// the four tools whose members mix valid values with garbage, so a case gets past the first
// checks. `__proto__`, `constructor` and `prototype` members are added through `JSON.parse`, so
// they are own properties exactly as a JSON request body would make them.
import fc from 'fast-check';

/** The tool names the fuzzer calls (plus, now and then, a name that is not a tool). */
export const TOOL_NAMES = ['schedule_create', 'schedule_list', 'schedule_update', 'schedule_delete'] as const;
export type FuzzedTool = (typeof TOOL_NAMES)[number];

/** The member names an injected pollution attempt uses. */
export const POLLUTION_KEYS = ['__proto__', 'constructor', 'prototype'] as const;

/** Marks a member left out of a generated object. */
const ABSENT = Symbol('absent');

const EDGE_NUMBERS = [
  0,
  -0,
  1,
  -1,
  59,
  60,
  61,
  0.5,
  59.999,
  60.000001,
  3600,
  86_400,
  604_800,
  2 ** 31 - 1,
  2 ** 31,
  2 ** 32,
  2 ** 53 - 1,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53),
  1e21,
  1e308,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
  Number.EPSILON,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  253_402_300_799,
  253_402_300_800,
  8.64e15,
  2_524_608_000_000,
];

const ODD_STRINGS = [
  '',
  ' ',
  '\t\n ',
  '\u0000',
  '\ud800',
  '\udfff',
  '\ufeff',
  '\u200b',
  '\u202e',
  'null',
  'undefined',
  '[object Object]',
  '__proto__',
  'constructor',
  'sch_1',
  'sch_01',
  ' sch_1',
  'SCH_1',
  'sch_9007199254740993',
  '\u{1F600}',
  'é',
  '中文',
];

export const edgeNumber = fc.constantFrom(...EDGE_NUMBERS);

/** Short strings of any code point, plus lone surrogates and other awkward ones. */
export const oddString = fc.oneof(
  fc.constantFrom(...ODD_STRINGS),
  fc.string({ maxLength: 40, unit: 'binary' }),
  fc.string({ maxLength: 20, unit: 'grapheme' }),
);

/** Strings of 1 000 to 200 000 characters. */
export const hugeString = fc
  .tuple(fc.integer({ min: 1_000, max: 200_000 }), fc.constantFrom('a', 'é', '\u{1F600}', ' ', '\u0000', '9', 'x '))
  .map(([n, unit]) => unit.repeat(Math.ceil(n / unit.length)));

/** Huge values shaped like real fields: long cron lists, long fractions, long zone names, long weekday lists. */
const HUGE_FIELDS: readonly unknown[] = [
  `${'0,'.repeat(50_000)}0 * * * *`,
  `* * * * ${'1-5,'.repeat(20_000)}1`,
  `@${'daily'.repeat(20_000)}`,
  `2030-01-01T09:00:00.${'1'.repeat(100_000)}Z`,
  `${'Europe/'.repeat(20_000)}London`,
  `09:00:00.${'0'.repeat(100_000)}`,
  Array.from({ length: 100_000 }, (_, i) => (i % 7) + 1),
];

function circular(): Record<string, unknown> {
  const o: Record<string, unknown> = { a: 1 };
  o.self = o;
  return o;
}

/** A value of any type (JSON or not). */
export const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.anything({ maxDepth: 3, maxKeys: 6, withBoxedValues: true, withMap: true, withSet: true }) },
  {
    weight: 2,
    arbitrary: fc.anything({
      maxDepth: 2,
      maxKeys: 4,
      withNullPrototype: true,
      withTypedArray: true,
      withSparseArray: true,
      withDate: true,
    }),
  },
  { weight: 1, arbitrary: fc.anything({ maxDepth: 1, withBigInt: true, withObjectString: true }) },
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 3, arbitrary: edgeNumber },
  { weight: 3, arbitrary: oddString },
  { weight: 1, arbitrary: fc.bigInt() },
  { weight: 1, arbitrary: fc.oneof(hugeString, fc.constantFrom(...HUGE_FIELDS)) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(Symbol('x'), () => 1, circular(), new Error('e'), /re/, new Date(Number.NaN)) },
);

const ZONES = [
  'UTC',
  'utc',
  'Asia/Shanghai',
  'asia/shanghai',
  'America/New_York',
  'Europe/London',
  'Australia/Lord_Howe',
  'Asia/Calcutta',
  'Asia/Kolkata',
  'Etc/GMT+5',
  'America/Argentina/ComodRivadavia',
  'Pacific/Kiritimati',
  'Antarctica/Troll',
];
const BAD_ZONES = [
  'EST',
  'GMT',
  'EST5EDT',
  '+08:00',
  'Z',
  ' UTC',
  'Mars/Olympus',
  'Asia/Shanghai\u0000',
  '../../etc/passwd',
  'Europe/Berlin/',
];
const TIMES = ['09:00:00', '00:00:00', '23:59:59.999', '01:30:00', '02:30:00', '02:15:00.5', '24:00:00', '23:59:60', '9:00:00', '09:00'];
const CRONS = [
  '*/15 * * * *',
  '0 9 * * 1-5',
  '30 1 * * *',
  '*/20 2 * * *',
  '0 0 29 2 *',
  '0 0 30 2 *',
  '0 0 31 4,6,9,11 *',
  '* * * * 7',
  '0 0 */2 * 1',
  '59 23 31 12 *',
  '0 0 29 2 1',
  'L * * * *',
  '@daily',
  '* * * *',
  '* * * * * *',
  '0 0 * JAN *',
  '1-0 * * * *',
  '*/0 * * * *',
  '0,,1 * * * *',
  `${Array.from({ length: 60 }, (_, i) => i).join(',')} * * * *`,
  ' 0 9 * * *',
  '0\t9 * * *',
];

const instantText = fc
  .tuple(
    fc.integer({ min: Date.parse('2029-12-31T00:00:00Z'), max: Date.parse('2031-01-01T00:00:00Z') }),
    fc.constantFrom('Z', 'z', '+08:00', '-05:30', '-00:00', '+14:00', '+24:00', ''),
  )
  .map(([ms, suffix]) => new Date(ms).toISOString().slice(0, -1) + suffix);
const AT_TEXTS = ['9999-12-31T23:59:59.999Z', '10000-01-01T00:00:00Z', '2030-02-30T09:00:00Z', '2030-01-01 09:00:00Z', '2030-01-01T09:00Z'];

const zone = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...ZONES) }, fc.constantFrom(...BAD_ZONES), anyValue);
const time = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...TIMES) }, anyValue);
const weekdays = fc.oneof(
  { weight: 4, arbitrary: fc.uniqueArray(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 7 }) },
  fc.array(fc.oneof(fc.integer({ min: -1, max: 9 }), edgeNumber, anyValue), { maxLength: 9 }),
  anyValue,
);
const expression = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...CRONS) }, oddString, anyValue);
const atValue = fc.oneof(
  { weight: 3, arbitrary: instantText },
  fc.constantFrom(...AT_TEXTS),
  partial({ date: fc.constantFrom('2030-03-10', '2030-11-03', '2030-06-01', '2030-02-29', '1999-01-01'), time, time_zone: zone }),
  anyValue,
);

/** A value for a field: mostly plausible, sometimes anything. */
const field = <T>(plausible: fc.Arbitrary<T>): fc.Arbitrary<unknown> =>
  fc.oneof({ weight: 5, arbitrary: plausible as fc.Arbitrary<unknown> }, { weight: 1, arbitrary: anyValue });

/** An object whose members are each present (six times in seven) or not, plus now and then an unknown member. */
function partial(members: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Record<string, unknown>> {
  const entries = Object.entries(members);
  return fc
    .tuple(
      fc.tuple(...entries.map(([, arb]) => fc.option(arb, { nil: ABSENT, freq: 7 }))),
      fc.oneof(
        { weight: 24, arbitrary: fc.constant(null) },
        {
          weight: 1,
          arbitrary: fc.dictionary(fc.oneof(oddString, fc.constantFrom('extra', 'Time', 'timezone')), anyValue, { maxKeys: 2 }),
        },
      ),
    )
    .map(([values, extra]) => {
      const out: Record<string, unknown> = extra === null ? {} : { ...extra };
      entries.forEach(([key], i) => {
        if (values[i] !== ABSENT) out[key] = values[i];
      });
      return out;
    });
}

const text = fc.oneof(
  { weight: 16, arbitrary: fc.constantFrom('Check the build', '  padded  ', 'x', 'A'.repeat(120), '日本語のタイトル', 'line\nbreak') },
  { weight: 1, arbitrary: fc.constantFrom('A'.repeat(121), '', ' \t ') },
  { weight: 2, arbitrary: oddString },
  { weight: 1, arbitrary: hugeString },
  { weight: 1, arbitrary: anyValue },
);

const daily = partial({ time, time_zone: zone });
const weekly = partial({ time, time_zone: zone, weekdays });
const cron = partial({ expression, time_zone: zone });

const selectorValues: Record<string, fc.Arbitrary<unknown>> = {
  after_seconds: field(fc.oneof(fc.integer({ min: 1, max: 10 ** 7 }), edgeNumber)),
  at: atValue,
  every_seconds: field(fc.oneof(fc.integer({ min: 30, max: 10 ** 7 }), edgeNumber)),
  daily: field(daily),
  weekly: field(weekly),
  cron: field(cron),
};

const createArgs = fc
  .tuple(
    partial({ prompt: text, title: text }),
    fc.subarray(Object.keys(selectorValues), { minLength: 0, maxLength: 2 }),
    fc.constantFrom(...Object.keys(selectorValues)),
    fc.nat({ max: 9 }),
  )
  .chain(([base, extra, main, roll]) => {
    const names = roll < 9 ? [main] : extra;
    return fc.tuple(...names.map((n) => selectorValues[n] ?? anyValue)).map((values) => {
      const out: Record<string, unknown> = { ...base };
      names.forEach((n, i) => {
        out[n] = values[i];
      });
      return out;
    });
  });

const change = fc.oneof(
  partial({ kind: fc.constant('at'), at: atValue }),
  partial({ kind: fc.constant('every'), every_seconds: selectorValues.every_seconds ?? anyValue }),
  partial({ kind: fc.constant('daily'), time, time_zone: zone }),
  partial({ kind: fc.constant('weekly'), time, time_zone: zone, weekdays }),
  partial({ kind: fc.constant('cron'), expression, time_zone: zone }),
  partial({ kind: fc.oneof(fc.constantFrom('after', 'AT', 'once', ''), anyValue), after_seconds: anyValue, at: atValue }),
  anyValue,
);

/** Task ids worth trying: the caller's, another Session's, an ended one, near misses, garbage. */
export const taskId = (known: readonly string[]): fc.Arbitrary<unknown> =>
  fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...known) }, { weight: 2, arbitrary: oddString }, { weight: 1, arbitrary: anyValue });

const updateArgs = (ids: readonly string[]) => partial({ id: taskId(ids), title: text, prompt: text, change });
const deleteArgs = (ids: readonly string[]) => partial({ id: taskId(ids) });
const listArgs = fc.oneof(fc.constant({}), fc.constant(undefined), fc.constant(null), partial({ all: anyValue, sessionId: oddString }));

/**
 * Inserts a `__proto__`, `constructor` or `prototype` member holding a pollution payload into the
 * object (at the top or one level down), as `JSON.parse` of a request body would: an own member.
 */
export const withPollutionKey = (args: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
  fc
    .tuple(
      args,
      fc.constantFrom(...POLLUTION_KEYS),
      fc.boolean(),
      fc.constantFrom('{"polluted":"yes"}', '{"prototype":{"polluted":"yes"}}'),
    )
    .map(([value, key, nested, payload]) => {
      let json: string | undefined;
      try {
        json = JSON.stringify(value);
      } catch {
        json = undefined;
      }
      if (json === undefined || !json.startsWith('{')) return JSON.parse(`{${JSON.stringify(key)}:${payload}}`) as unknown;
      const member = `${JSON.stringify(key)}:${payload}`;
      const inner = /^\{"(daily|weekly|cron|change|at)":\{/.exec(json);
      if (nested && inner !== null) {
        const at = inner[0].length;
        const rest = json.slice(at);
        return JSON.parse(`${json.slice(0, at)}${member}${rest.startsWith('}') ? '' : ','}${rest}`) as unknown;
      }
      return JSON.parse(json === '{}' ? `{${member}}` : `{${member},${json.slice(1)}`) as unknown;
    });

/** One fuzz case: a tool name and its arguments. `ids` are the task ids the fuzzer may aim at. */
export interface ToolCase {
  readonly name: string;
  readonly args: unknown;
}

/** Cases for all four tools (and, rarely, an unknown tool name). */
export function toolCase(ids: readonly string[]): fc.Arbitrary<ToolCase> {
  const shaped = fc.oneof(
    { weight: 4, arbitrary: createArgs.map((args) => ({ name: 'schedule_create', args })) },
    { weight: 1, arbitrary: listArgs.map((args) => ({ name: 'schedule_list', args })) },
    { weight: 3, arbitrary: updateArgs(ids).map((args) => ({ name: 'schedule_update', args })) },
    { weight: 2, arbitrary: deleteArgs(ids).map((args) => ({ name: 'schedule_delete', args })) },
  );
  return fc.oneof(
    { weight: 24, arbitrary: shaped },
    {
      weight: 2,
      arbitrary: shaped.chain((c) => withPollutionKey(fc.constant(c.args)).map((args) => ({ name: c.name, args }))),
    },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...TOOL_NAMES), anyValue).map(([name, args]) => ({ name, args })) },
    { weight: 1, arbitrary: fc.tuple(oddString, anyValue).map(([name, args]) => ({ name, args })) },
  );
}

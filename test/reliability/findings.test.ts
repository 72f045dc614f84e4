// Defects the reliability checks found, each pinned by the smallest call that showed it: values
// that are not JSON (BigInt, circular objects) in a rule field, error messages that echoed an
// untrusted value or key list whole, and the time-zone name cache growing with every distinct
// name a caller ever sent.
import { cachedTimeZoneCount, normalizeTimeZone } from '../../src/domain/time/timeZone.ts';
import { closeAll, harness } from '../support/harness.ts';
import { T0 } from './world.ts';

afterEach(closeAll);

const base = { prompt: 'p', title: 't' };

function circular(): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  o.self = o;
  return o;
}

const codeOf = (value: unknown): unknown => (value as { code?: unknown }).code;
const messageOf = (value: unknown): string => String((value as { message?: unknown }).message);

describe('values that are not JSON are refused with the code of their field', () => {
  it.each<[string, Record<string, unknown>]>([
    ['a BigInt daily time', { daily: { time: 10n, time_zone: 'UTC' } }],
    ['a circular daily time', { daily: { time: circular(), time_zone: 'UTC' } }],
    ['a BigInt weekday', { weekly: { time: '09:00:00', time_zone: 'UTC', weekdays: [1, 2n] } }],
    ['a circular weekday', { weekly: { time: '09:00:00', time_zone: 'UTC', weekdays: [circular()] } }],
  ])('%s is invalid_rule, not internal_error', async (_name, selector) => {
    const h = await harness({ start: T0 });
    const result = await h.svc.callTool('A', 'schedule_create', { ...base, ...selector });
    expect(codeOf(result)).toBe('invalid_rule');
    expect(h.logs).toEqual([]);
  });

  it('a BigInt history limit is invalid_rule', async () => {
    const h = await harness({ start: T0 });
    const view = (await h.svc.callTool('A', 'schedule_create', { ...base, after_seconds: 60 })) as { id: string };
    const page = await h.svc.remote.history({ sessionId: 'A', id: view.id, limit: 5n as unknown as number });
    expect(codeOf(page)).toBe('invalid_rule');
  });
});

describe('error messages quote at most a short excerpt of what was received', () => {
  const huge = 'x'.repeat(100_000);
  const manyKeys = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i]));
  it.each<[string, string, unknown]>([
    ['an unknown task id', 'schedule_delete', { id: huge }],
    ['an unknown task id in an update', 'schedule_update', { id: huge, title: 'x' }],
    ['a time of day', 'schedule_create', { ...base, daily: { time: huge, time_zone: 'UTC' } }],
    ['a time zone', 'schedule_create', { ...base, daily: { time: '09:00:00', time_zone: huge } }],
    ['a weekday', 'schedule_create', { ...base, weekly: { time: '09:00:00', time_zone: 'UTC', weekdays: [huge] } }],
    ['a cron macro', 'schedule_create', { ...base, cron: { expression: `@${huge}`, time_zone: 'UTC' } }],
    ['a cron field', 'schedule_create', { ...base, cron: { expression: `${huge} * * * *`, time_zone: 'UTC' } }],
    ['a cron list item', 'schedule_create', { ...base, cron: { expression: `0,${huge} * * * *`, time_zone: 'UTC' } }],
    ['a cron field count', 'schedule_create', { ...base, cron: { expression: `${'1 '.repeat(50_000)}1`, time_zone: 'UTC' } }],
    ['ten thousand unknown arguments', 'schedule_create', { ...base, after_seconds: 60, ...manyKeys }],
    ['ten thousand unknown arguments of a tool', 'schedule_delete', { id: 'sch_1', ...manyKeys }],
    ['ten thousand unknown members of a rule', 'schedule_create', { ...base, daily: { time: '09:00:00', time_zone: 'UTC', ...manyKeys } }],
    [
      'ten thousand unknown members of a change',
      'schedule_update',
      { id: 'sch_1', change: { kind: 'every', every_seconds: 60, ...manyKeys } },
    ],
  ])('%s', async (_name, tool, args) => {
    const h = await harness({ start: T0 });
    await h.svc.callTool('A', 'schedule_create', { ...base, after_seconds: 60 });
    const result = await h.svc.callTool('A', tool, args);
    expect(typeof codeOf(result)).toBe('string');
    expect(messageOf(result).length).toBeLessThanOrEqual(1_000);
  });
});

describe('the time-zone name cache', () => {
  it('stays bounded however many distinct names are tried', () => {
    for (let i = 0; i < 5_000; i++) {
      expect(() => normalizeTimeZone(`Nowhere/Place_${i}`)).toThrow();
      expect(() => normalizeTimeZone(`${i} `.repeat(50))).toThrow();
    }
    expect(cachedTimeZoneCount()).toBeLessThanOrEqual(4_096);
    expect(normalizeTimeZone('asia/shanghai')).toBe('Asia/Shanghai');
  });
});

// Found by the checks and fixed in the service, the remote namespace and the delivery attempt
// (F4–F6 in RELIABILITY.md).
describe('findings fixed in the service', () => {
  it('a Session id longer than storage accepts is refused by callTool, not answered persistence_uncertain (src/service.ts)', async () => {
    const h = await harness({ start: T0 });
    await expect(h.svc.callTool('s'.repeat(300), 'schedule_create', { ...base, after_seconds: 60 })).rejects.toBeInstanceOf(TypeError);
  });

  it('the remote namespace quotes at most an excerpt of an unknown id, and a BigInt id is not found (src/planning/remotePlans.ts)', async () => {
    const h = await harness({ start: T0 });
    const page = await h.svc.remote.history({ sessionId: 'A', id: 'x'.repeat(100_000), limit: 5 });
    expect(messageOf(page).length).toBeLessThanOrEqual(1_000);
    const odd = await h.svc.remote.history({ sessionId: 'A', id: 5n as unknown as string, limit: 5 });
    expect(codeOf(odd)).toBe('schedule_not_found');
  });

  it('a Host message id longer than storage accepts does not make the reminder append again on every retry (src/runtime, codec)', async () => {
    let appended = 0;
    const h = await harness({
      start: T0,
      config: { retry: { initialMs: 1000, maxMs: 4000 } },
      controller: {
        resolveAgent: async () => ({
          followup: () => ({ messageId: `m${++appended}-${'x'.repeat(300)}` }),
          flush: async () => undefined,
        }),
      },
    });
    await h.svc.callTool('A', 'schedule_create', { ...base, after_seconds: 60 });
    await h.clock.advance(60_000);
    for (let i = 0; i < 10; i++) await h.clock.advance(4000);
    await h.svc.whenIdle();
    expect(appended).toBe(1);
  });
});

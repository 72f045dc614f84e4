// catalogPage: the filtering, ordering and keyset paging behind `remote.catalog(request)`, on
// plain catalog entries — text search, Session/kind/status filters (paused and failing among
// them), the time-zone data drift filter, the three orders, cursors that stay put while entries
// come and go, and the refusals of bad options.

import { ScheduleError } from '../../src/domain/errors.ts';
import { catalogPage, MAX_CATALOG_LIMIT } from '../../src/domain/reads/catalogPage.ts';
import type { CatalogEntry, DeliveryFailure, ScheduleRecord } from '../../src/domain/tasks/types.ts';

const NOW = Date.parse('2030-01-01T12:00:00.000Z');
const at = (minutes: number) => new Date(NOW + minutes * 60_000).toISOString();

function entry(
  n: number,
  over: {
    title?: string;
    prompt?: string;
    sessionId?: string;
    minutes?: number;
    status?: 'active' | 'inactive';
    delivered?: number;
    kind?: 'every' | 'at';
  } = {},
): CatalogEntry {
  const kind = over.kind ?? 'every';
  const record =
    kind === 'every'
      ? {
          id: `sch_${n}`,
          kind,
          title: over.title ?? `Task ${n}`,
          prompt: over.prompt ?? `prompt ${n}`,
          scheduledAt: at(over.minutes ?? n),
          everySeconds: 60,
        }
      : {
          id: `sch_${n}`,
          kind,
          title: over.title ?? `Task ${n}`,
          prompt: over.prompt ?? `prompt ${n}`,
          scheduledAt: at(over.minutes ?? n),
        };
  const base = { sessionId: over.sessionId ?? 's1', status: over.status ?? 'active', record } as const;
  return over.delivered === undefined
    ? base
    : { ...base, lastDelivery: { scheduledAt: at(over.delivered), deliveredAt: at(over.delivered), messageId: `m${n}` } };
}

/** An active wall-clock entry with the given timing and committed target. */
function wallClock(
  n: number,
  timing: Record<string, unknown>,
  scheduledAt: string,
  status: 'active' | 'inactive' = 'active',
): CatalogEntry {
  const record = { id: `sch_${n}`, title: `Task ${n}`, prompt: `prompt ${n}`, scheduledAt, ...timing } as ScheduleRecord;
  return { sessionId: 's1', status, record };
}

const FAILURE: DeliveryFailure = { attempts: 2, lastAt: at(-1), stage: 'flush', message: 'the Session did not answer' };

const ids = (page: { entries: CatalogEntry[] }) => page.entries.map((e) => e.record.id);

function refusal(request: unknown, entries: CatalogEntry[] = []): { code: string; message: string } {
  try {
    catalogPage(entries, request, NOW);
  } catch (error) {
    if (error instanceof ScheduleError) return error.toFailure();
    throw error;
  }
  throw new Error('not refused');
}

describe('catalogPage', () => {
  it('orders by next target by default: active soonest first, ended ones last (latest ended first), ties by id number', () => {
    const entries = [
      entry(1, { minutes: 30 }),
      entry(2, { minutes: -5, status: 'inactive' }),
      entry(10, { minutes: 10 }),
      entry(3, { minutes: 10 }),
      entry(4, { minutes: -50, status: 'inactive' }),
      entry(5, { minutes: -1 }),
    ];
    const page = catalogPage(entries, {}, NOW);
    expect(ids(page)).toEqual(['sch_5', 'sch_3', 'sch_10', 'sch_1', 'sch_2', 'sch_4']);
    expect(page.total).toBe(6);
    expect(page).not.toHaveProperty('nextCursor');
  });

  it('orders by last delivery (newest first, never delivered last) and by title (case-insensitive)', () => {
    const entries = [
      entry(1, { delivered: -30, title: 'beta' }),
      entry(2, { title: 'Alpha' }),
      entry(3, { delivered: -1, title: 'alpha' }),
    ];
    expect(ids(catalogPage(entries, { sort: 'lastDelivery' }, NOW))).toEqual(['sch_3', 'sch_1', 'sch_2']);
    expect(ids(catalogPage(entries, { sort: 'title' }, NOW))).toEqual(['sch_2', 'sch_3', 'sch_1']);
  });

  it('searches title, prompt, id and Session, case-insensitively, and combines the filters', () => {
    const entries = [
      entry(1, { title: 'Water the PLANTS' }),
      entry(2, { prompt: 'check the plants outside', sessionId: 'garden' }),
      entry(3, { sessionId: 'plantsession', kind: 'at' }),
      entry(42, { title: 'unrelated' }),
    ];
    expect(ids(catalogPage(entries, { filter: { text: '  plants ' } }, NOW))).toEqual(['sch_1', 'sch_2', 'sch_3']);
    expect(ids(catalogPage(entries, { filter: { text: 'SCH_42' } }, NOW))).toEqual(['sch_42']);
    expect(ids(catalogPage(entries, { filter: { text: 'plant', sessionId: 'garden' } }, NOW))).toEqual(['sch_2']);
    expect(ids(catalogPage(entries, { filter: { text: 'plant', kind: 'at' } }, NOW))).toEqual(['sch_3']);
    expect(catalogPage(entries, { filter: { text: '' } }, NOW).total).toBe(4);
    expect(ids(catalogPage(entries, { filter: { id: 'sch_4' } }, NOW))).toEqual([]);
    expect(ids(catalogPage(entries, { filter: { id: 'sch_42' } }, NOW))).toEqual(['sch_42']);
  });

  it('filters by status: active, inactive, overdue (target at or before now) and scheduled', () => {
    const entries = [
      entry(1, { minutes: 0 }),
      entry(2, { minutes: 5 }),
      entry(3, { minutes: -5, status: 'inactive' }),
      entry(4, { minutes: -9 }),
    ];
    const by = (status: string) => ids(catalogPage(entries, { filter: { status } }, NOW));
    expect(by('active')).toEqual(['sch_4', 'sch_1', 'sch_2']);
    expect(by('overdue')).toEqual(['sch_4', 'sch_1']);
    expect(by('scheduled')).toEqual(['sch_2']);
    expect(by('inactive')).toEqual(['sch_3']);
  });

  it('filters by paused (pausedAt) and failing (failure); scheduled and overdue leave paused entries out', () => {
    const entries: CatalogEntry[] = [
      entry(1, { minutes: -5 }),
      { ...entry(2, { minutes: -5 }), pausedAt: at(-60) },
      { ...entry(3, { minutes: 5 }), pausedAt: at(-60), failure: FAILURE },
      { ...entry(4, { minutes: -2 }), failure: FAILURE },
      entry(5, { minutes: 5 }),
      entry(6, { minutes: -9, status: 'inactive' }),
    ];
    const by = (status: string) => ids(catalogPage(entries, { filter: { status } }, NOW));
    expect(by('paused')).toEqual(['sch_2', 'sch_3']);
    expect(by('failing')).toEqual(['sch_4', 'sch_3']);
    expect(by('overdue')).toEqual(['sch_1', 'sch_4']);
    expect(by('scheduled')).toEqual(['sch_5']);
    expect(by('active')).toEqual(['sch_1', 'sch_2', 'sch_4', 'sch_3', 'sch_5']);
    expect(by('inactive')).toEqual(['sch_6']);
    expect(catalogPage(entries, { filter: { status: 'failing', text: 'task 4' } }, NOW).total).toBe(1);
  });

  it('filters by drift: the active daily, weekly and cron entries whose target the zone data no longer yields', () => {
    const paris = { kind: 'daily', time: '09:00:00', timeZone: 'Europe/Paris' };
    const entries = [
      // 09:00 in Paris in January is 08:00 UTC: on the rule. An hour earlier is not.
      wallClock(1, paris, '2030-01-02T08:00:00.000Z'),
      wallClock(2, paris, '2030-01-02T07:00:00.000Z'),
      wallClock(3, { kind: 'weekly', time: '09:00:00', timeZone: 'Asia/Tokyo', weekdays: [1] }, '2030-01-07T01:00:00.000Z'),
      wallClock(4, { kind: 'cron', expression: '30 10 * * 1-5', timeZone: 'UTC' }, '2030-01-04T10:30:00.000Z'),
      wallClock(5, { kind: 'cron', expression: '30 10 * * 1-5', timeZone: 'UTC' }, '2030-01-05T10:30:00.000Z'),
      // Ended, or not a wall-clock kind: never drifted, whatever the target.
      wallClock(6, paris, '2030-01-02T07:00:00.000Z', 'inactive'),
      entry(7, { minutes: 1 }),
      entry(8, { kind: 'at', minutes: 3 }),
    ];
    const drifted = catalogPage(entries, { filter: { drifted: true } }, NOW);
    expect(ids(drifted)).toEqual(['sch_2', 'sch_5', 'sch_3']);
    expect(drifted.total).toBe(3);
    expect(ids(catalogPage(entries, { filter: { drifted: false }, sort: 'title' }, NOW))).toEqual([
      'sch_1',
      'sch_4',
      'sch_6',
      'sch_7',
      'sch_8',
    ]);
    // It combines with the other members and pages like any filter.
    expect(ids(catalogPage(entries, { filter: { drifted: true, kind: 'cron' } }, NOW))).toEqual(['sch_5']);
    const first = catalogPage(entries, { filter: { drifted: true }, limit: 2 }, NOW);
    expect(ids(first)).toEqual(['sch_2', 'sch_5']);
    const second = catalogPage(entries, { filter: { drifted: true }, limit: 2, cursor: first.nextCursor }, NOW);
    expect(ids(second)).toEqual(['sch_3']);
    expect(second.total).toBe(3);
    expect(second).not.toHaveProperty('nextCursor');
  });

  it('pages with a cursor until the last page, with the same total on every page', () => {
    const entries = Array.from({ length: 23 }, (_, i) => entry(i + 1, { minutes: 100 - i }));
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = catalogPage(entries, cursor === undefined ? { limit: 10 } : { limit: 10, cursor }, NOW);
      expect(page.total).toBe(23);
      seen.push(...ids(page));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== undefined);
    expect(pages).toBe(3);
    expect(seen).toEqual(Array.from({ length: 23 }, (_, i) => `sch_${23 - i}`));
  });

  it('a small page of many entries is the same as the start of the whole order, page after page', () => {
    // Targets in a scrambled order with ties, so the pick of the few smallest is exercised.
    const entries = Array.from({ length: 300 }, (_, i) => entry(i + 1, { minutes: (i * 37) % 101 }));
    const whole = catalogPage(entries, { limit: 500 }, NOW);
    const paged: string[] = [];
    let cursor: string | undefined;
    do {
      const page = catalogPage(entries, cursor === undefined ? { limit: 7 } : { limit: 7, cursor }, NOW);
      paged.push(...ids(page));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(paged).toEqual(ids(whole));
    expect(new Set(paged).size).toBe(300);
  });

  it('a cursor stays put when entries before it are deleted or new ones are added', () => {
    const entries = Array.from({ length: 6 }, (_, i) => entry(i + 1));
    const first = catalogPage(entries, { limit: 3 }, NOW);
    expect(ids(first)).toEqual(['sch_1', 'sch_2', 'sch_3']);
    const changed = [
      ...entries.filter((e) => e.record.id !== 'sch_2' && e.record.id !== 'sch_3'),
      entry(7, { minutes: 0 }),
      entry(8, { minutes: 99 }),
    ];
    const second = catalogPage(changed, { limit: 3, cursor: first.nextCursor }, NOW);
    expect(ids(second)).toEqual(['sch_4', 'sch_5', 'sch_6']);
    expect(second.total).toBe(6);
    // The cursor's own entry may be gone too: the next page starts after where it was.
    const afterFour = catalogPage(changed, { limit: 1, cursor: first.nextCursor }, NOW).nextCursor;
    const withoutFour = changed.filter((e) => e.record.id !== 'sch_4');
    expect(ids(catalogPage(withoutFour, { limit: 3, cursor: afterFour }, NOW))).toEqual(['sch_5', 'sch_6', 'sch_8']);
  });

  it('refuses bad options with invalid_selector or invalid_rule and a message naming the member', () => {
    expect(refusal(null)).toMatchObject({ code: 'invalid_selector' });
    expect(refusal([])).toMatchObject({ code: 'invalid_selector' });
    expect(refusal({ page: 2 })).toMatchObject({ code: 'invalid_selector', message: expect.stringContaining('"page"') });
    expect(refusal({ sort: 'id' })).toMatchObject({ code: 'invalid_selector', message: expect.stringContaining('sort "id"') });
    expect(refusal({ filter: 'x' })).toMatchObject({ code: 'invalid_selector' });
    expect(refusal({ filter: { owner: 'x' } })).toMatchObject({ code: 'invalid_selector', message: expect.stringContaining('"owner"') });
    expect(refusal({ filter: { status: 'drifted' } })).toMatchObject({
      code: 'invalid_selector',
      message: expect.stringContaining(
        'filter.status "drifted" is not accepted: use "active", "inactive", "overdue", "scheduled", "paused" or "failing"',
      ),
    });
    for (const drifted of ['true', 1, null]) {
      expect(refusal({ filter: { drifted } })).toMatchObject({
        code: 'invalid_selector',
        message: expect.stringMatching(/^filter\.drifted .* is not accepted: use true or false\.$/),
      });
    }
    expect(refusal({ filter: { kind: 'hourly' } })).toMatchObject({
      code: 'invalid_selector',
      message: expect.stringContaining('filter.kind'),
    });
    expect(refusal({ filter: { text: 5 } })).toMatchObject({ code: 'invalid_selector', message: expect.stringContaining('filter.text') });
    for (const limit of [0, MAX_CATALOG_LIMIT + 1, 1.5, '10']) expect(refusal({ limit })).toMatchObject({ code: 'invalid_rule' });
    for (const cursor of ['nope', 'c1.!!', 'c1.W10', 42]) expect(refusal({ cursor })).toMatchObject({ code: 'invalid_selector' });
    const { nextCursor } = catalogPage([entry(1), entry(2)], { limit: 1 }, NOW);
    expect(refusal({ cursor: nextCursor, sort: 'title' })).toMatchObject({
      code: 'invalid_selector',
      message: expect.stringContaining('made for sort "next"'),
    });
  });
});

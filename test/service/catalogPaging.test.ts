// remote.catalog with options: one page of the catalog through the service's mailbox — filters,
// order, cursors across pages, `overdue` read at the service clock's now, refusals answered as
// `{code, message}` — while remote.catalog() without an argument still answers every task.
import type { CatalogPage } from '../../src/domain/reads/catalogPage.ts';
import { closeAll, create, harness, MINUTE, tick } from '../support/harness.ts';

afterEach(closeAll);

const page = (answer: unknown): CatalogPage => {
  if (answer === null || typeof answer !== 'object' || !('entries' in answer)) throw new Error(`not a page: ${JSON.stringify(answer)}`);
  return answer as CatalogPage;
};

describe('remote.catalog with options', () => {
  it('without an argument answers every task in id order, as a plain array', async () => {
    const h = await harness();
    await create(h, 's1', { title: 'Later', after_seconds: 600 });
    await create(h, 's2', { title: 'Sooner', after_seconds: 60 });
    const all = await h.svc.remote.catalog();
    expect(Array.isArray(all)).toBe(true);
    expect(all.map((e) => e.record.title)).toEqual(['Later', 'Sooner']);
  });

  it('answers one page: soonest first, with the total and a cursor to the next page', async () => {
    const h = await harness();
    for (let i = 0; i < 7; i++) await create(h, i % 2 === 0 ? 'even' : 'odd', { title: `T${i}`, after_seconds: 600 - i * 60 });
    const first = page(await h.svc.remote.catalog({ limit: 3 }));
    expect(first.entries.map((e) => e.record.title)).toEqual(['T6', 'T5', 'T4']);
    expect(first.total).toBe(7);
    expect(first.entries[0]).not.toHaveProperty('deliveryHistory');
    const second = page(await h.svc.remote.catalog({ limit: 3, ...(first.nextCursor ? { cursor: first.nextCursor } : {}) }));
    expect(second.entries.map((e) => e.record.title)).toEqual(['T3', 'T2', 'T1']);
    const even = page(await h.svc.remote.catalog({ filter: { sessionId: 'even' }, sort: 'title' }));
    expect(even.entries.map((e) => e.record.title)).toEqual(['T0', 'T2', 'T4', 'T6']);
    expect(even).not.toHaveProperty('nextCursor');
  });

  it('reads overdue and scheduled at the clock of the service, and ended tasks as inactive', async () => {
    const h = await harness();
    await create(h, 's1', { title: 'Once', after_seconds: 60 });
    await create(h, 's1', { title: 'Hourly', every_seconds: 3600 });
    await tick(h, MINUTE);
    const titles = async (status: 'active' | 'inactive' | 'overdue' | 'scheduled') =>
      page(await h.svc.remote.catalog({ filter: { status } })).entries.map((e) => e.record.title);
    expect(await titles('inactive')).toEqual(['Once']);
    expect(await titles('scheduled')).toEqual(['Hourly']);
    expect(await titles('overdue')).toEqual([]);
    const delivered = page(await h.svc.remote.catalog({ sort: 'lastDelivery' }));
    expect(delivered.entries.map((e) => [e.record.title, e.lastDelivery !== undefined])).toEqual([
      ['Once', true],
      ['Hourly', false],
    ]);
  });

  it('refuses bad options with {code, message}, never rejecting', async () => {
    const h = await harness();
    const ask = (request: unknown) => h.svc.remote.catalog(request as { limit: number });
    expect(await ask({ limit: 0 })).toEqual({ code: 'invalid_rule', message: expect.stringContaining('limit 0') });
    expect(await ask({ sort: 'nope' })).toMatchObject({ code: 'invalid_selector' });
    expect(await ask({ cursor: 'c1.x' })).toMatchObject({ code: 'invalid_selector' });
    expect(await ask('everything')).toMatchObject({ code: 'invalid_selector', message: expect.stringContaining('remote.catalog takes') });
    expect(await ask({ filter: { status: 'sleeping' } })).toMatchObject({ code: 'invalid_selector' });
  });
});

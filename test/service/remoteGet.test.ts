// remote.get: one task of a Session as a catalog entry, without reading the whole catalog.
import { closeAll, create, harness, MINUTE, tick } from '../support/harness.ts';

afterEach(closeAll);

describe('remote.get', () => {
  it('returns the entry of an active or ended task of that Session, with lastDelivery and no history', async () => {
    const h = await harness();
    const v = await create(h, 's1', { after_seconds: 60 });
    expect(await h.svc.remote.get({ sessionId: 's1', id: v.id })).toEqual((await h.svc.remote.catalog())[0]);
    await tick(h, MINUTE);
    const ended = await h.svc.remote.get({ sessionId: 's1', id: v.id });
    expect(ended).toMatchObject({ sessionId: 's1', status: 'inactive', record: { id: v.id } });
    expect(ended).toHaveProperty('lastDelivery');
    expect(ended).not.toHaveProperty('deliveryHistory');
  });

  it('another Session, an unknown id or a missing id answer schedule_not_found', async () => {
    const h = await harness();
    const v = await create(h, 's1', { after_seconds: 60 });
    for (const request of [{ sessionId: 's2', id: v.id }, { sessionId: 's1', id: 'sch_99' }, { sessionId: 's1' }]) {
      expect(await h.svc.remote.get(request as { sessionId: string; id: string })).toMatchObject({ code: 'schedule_not_found' });
    }
  });
});

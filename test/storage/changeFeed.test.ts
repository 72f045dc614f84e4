// The change feed on PGlite: the changes one Host publishes in one turn of the event loop, or
// within the gathering after the first, reach every listening Host, each as its own change and in
// order, through one statement; stopping sends what is gathered; a change
// naming more ids than one notification holds arrives split; a failed send is reported, never thrown;
// a Host reads what it hears only while something on it subscribes.
import { changeFeed, type FeedChange } from '../../src/adapters/postgres/changeFeed.ts';
import type { SqlPool } from '../../src/adapters/postgres/driver.ts';
import type { NotificationListener } from '../../src/adapters/postgres/notificationListener.ts';
import { countingPool } from '../support/countingPool.ts';
import { waitUntil } from '../support/waitUntil.ts';
import { pgliteListener, randomSchema, usePglite } from './postgresHarness.ts';

const db = usePglite();

test('changes published in one turn go out in one statement and reach every Host in order', async () => {
  const schema = randomSchema();
  const counted = countingPool(db.pool);
  const listen = pgliteListener(() => db.db);
  const sender = changeFeed({ pool: counted.pool, schema, listen });
  const other = changeFeed({ pool: db.pool, schema, listen });
  await sender.start();
  await other.start();
  const heard: FeedChange[] = [];
  other.subscribe((change) => heard.push(change));
  try {
    counted.reset();
    const many = Array.from({ length: 1_000 }, (_, i) => `sch_${String(i).padStart(8, '0')}`);
    await Promise.all([
      sender.publish({ type: 'schedule/changed', sessionId: 's1', ids: ['sch_1'] }),
      sender.publish({ type: 'schedule/changed', sessionId: 's2', ids: ['sch_2', 'sch_3'] }),
      sender.publish({ type: 'schedule/changed', sessionId: 's3', ids: many }),
    ]);
    expect(counted.count()).toBe(1);
    await waitUntil(() => heard.flatMap((change) => change.ids).length === 1_003, 'every id heard at the other Host');
    expect(heard.slice(0, 2)).toEqual([
      { type: 'schedule/changed', sessionId: 's1', ids: ['sch_1'] },
      { type: 'schedule/changed', sessionId: 's2', ids: ['sch_2', 'sch_3'] },
    ]);
    const split = heard.slice(2);
    expect(split.length).toBeGreaterThan(1);
    expect(split.every((change) => change.sessionId === 's3')).toBe(true);
    expect(split.flatMap((change) => change.ids)).toEqual(many);
  } finally {
    await sender.stop();
    await other.stop();
  }
});

test('changes published in later turns within the gathering go out with the first; stopping sends what is gathered at once', async () => {
  const schema = randomSchema();
  const counted = countingPool(db.pool);
  const listen = pgliteListener(() => db.db);
  const gathering = changeFeed({ pool: counted.pool, schema, listen, gatherMs: 50 });
  const other = changeFeed({ pool: db.pool, schema, listen });
  await other.start();
  const heard: FeedChange[] = [];
  other.subscribe((change) => heard.push(change));
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  try {
    counted.reset();
    const first = gathering.publish({ type: 'schedule/changed', sessionId: 's1', ids: ['sch_1'] });
    await turn();
    const second = gathering.publish({ type: 'schedule/changed', sessionId: 's2', ids: ['sch_2'] });
    await Promise.all([first, second]);
    expect(counted.count()).toBe(1);
    await waitUntil(() => heard.length === 2, 'both changes heard');
    expect(heard.map((change) => change.sessionId)).toEqual(['s1', 's2']);

    const held = changeFeed({ pool: counted.pool, schema, listen, gatherMs: 3_600_000 });
    await held.start();
    counted.reset();
    const last = held.publish({ type: 'schedule/changed', sessionId: 's3', ids: ['sch_3'] });
    await held.stop();
    await last;
    expect(counted.count()).toBe(1);
    await waitUntil(() => heard.length === 3, 'the change gathered at the stop heard');
  } finally {
    await gathering.stop();
    await other.stop();
  }
});

test('a send that fails is reported to onError and the publish still settles', async () => {
  const failing: SqlPool = {
    connect: () => Promise.reject(new Error('connection refused')),
    end: () => Promise.resolve(),
  };
  const errors: unknown[] = [];
  const feed = changeFeed({ pool: failing, schema: randomSchema(), listen: pgliteListener(() => db.db), onError: (e) => errors.push(e) });
  await feed.publish({ type: 'schedule/changed', sessionId: 's1', ids: ['sch_1'] });
  await feed.publish({ type: 'schedule/changed', sessionId: 's1', ids: ['sch_2'] });
  expect(errors.map((e) => String((e as Error).message))).toEqual([
    'A schedule change could not be published (connection refused).',
    'A schedule change could not be published (connection refused).',
  ]);
});

test('a Host with no subscriber reads none of the changes it hears; one that subscribes reads them from then on', async () => {
  let deliver: (payload: string) => void = () => undefined;
  const listen: NotificationListener = async (_channels, onNotification) => {
    deliver = (payload) => onNotification(`${schema}_changes`, payload);
    return async () => undefined;
  };
  const schema = randomSchema();
  const errors: unknown[] = [];
  const feed = changeFeed({ pool: db.pool, schema, listen, onError: (e) => errors.push(e) });
  await feed.start();
  try {
    deliver('not a change');
    deliver(JSON.stringify({ sessionId: 's1', ids: ['sch_1'] }));
    expect(errors).toEqual([]);
    const heard: FeedChange[] = [];
    const off = feed.subscribe((change) => heard.push(change));
    deliver(JSON.stringify({ sessionId: 's2', ids: ['sch_2'] }));
    deliver('not a change');
    expect(heard).toEqual([{ type: 'schedule/changed', sessionId: 's2', ids: ['sch_2'] }]);
    expect(errors).toHaveLength(1);
    off();
    deliver(JSON.stringify({ sessionId: 's3', ids: ['sch_3'] }));
    expect(heard).toHaveLength(1);
  } finally {
    await feed.stop();
  }
});

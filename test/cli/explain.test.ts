// `agent-schedule explain` against an in-process Host on a test clock (2030-01-07T08:00Z): a
// task's status and timing, its last receipts with lateness, its next occurrences with the DST
// notes of the scheduler's preview, found with or without --session; the failure status of a
// delivery that failed (on a Host with fake Sessions), the occurrences a late delivery coalesced;
// and a missing task worded the same way by explain, delete, history, update, pause, resume and
// run-now.

import type { Explanation } from '../../src/cli/explain.ts';
import type { CatalogEntry, CatalogPage } from '../../src/index.ts';
import { startTestHost, type TestHost } from '../host/support.ts';
import { startFakeSessionHost } from './fakeSessionHost.ts';
import { runCli } from './support.ts';

let t: TestHost;
beforeEach(async () => {
  t = await startTestHost();
});
afterEach(async () => {
  await t.close();
});

const cli = (...argv: string[]) => runCli(t.url, ...argv);

describe('agent-schedule explain', () => {
  it('shows a recurring task’s receipts with lateness and its next occurrences, with or without --session', async () => {
    await cli('create', '--session', 'demo', '--title', 'Tick', '--prompt', 'tick', '--every', '600');
    await t.advance(1_200_000);
    const r = await cli('explain', '--id', 'sch_1', '--next', '3', '--json');
    expect(r).toMatchObject({ code: 0, err: '' });
    const x = JSON.parse(r.out) as Explanation;
    expect(x).toMatchObject({ sessionId: 'demo', status: 'active', record: { id: 'sch_1', scheduledAt: '2030-01-07T08:30:00.000Z' } });
    expect(x.receipts.map((receipt) => [receipt.scheduledAt, receipt.latenessMs])).toEqual([
      ['2030-01-07T08:20:00.000Z', Date.parse(x.receipts[0]?.deliveredAt ?? '') - Date.parse('2030-01-07T08:20:00.000Z')],
      ['2030-01-07T08:10:00.000Z', Date.parse(x.receipts[1]?.deliveredAt ?? '') - Date.parse('2030-01-07T08:10:00.000Z')],
    ]);
    expect(x.next.map((o) => o.at)).toEqual(['2030-01-07T08:30:00.000Z', '2030-01-07T08:40:00.000Z', '2030-01-07T08:50:00.000Z']);

    const human = await cli('explain', '--id', 'sch_1', '--session', 'demo', '--next', '2', '--receipts', '1');
    expect(human.code).toBe(0);
    expect(human.out.split('\n')).toEqual([
      'sch_1 "Tick" in Session demo: active',
      'Timing: every 600 s',
      'Next target: 2030-01-07T08:30:00.000Z (2030-01-07 08:30:00 UTC)',
      '',
      'Last deliveries, newest first:',
      expect.stringMatching(/^ {2}OCCURRENCE\s+DELIVERED\s+LATE BY\s+MESSAGE$/),
      expect.stringMatching(/^ {2}2030-01-07T08:20:00\.000Z\s+2030-01-07T08:20:00\.000Z\s+0 ms\s+msg-2$/),
      '',
      'Next occurrences:',
      expect.stringMatching(/^ {2}AT \(UTC\)\s+LOCAL\s+OFFSET\s+NOTES$/),
      expect.stringMatching(/^ {2}2030-01-07T08:30:00\.000Z\s+2030-01-07T08:30:00\s+\+00:00$/),
      expect.stringMatching(/^ {2}2030-01-07T08:40:00\.000Z\s+2030-01-07T08:40:00\s+\+00:00$/),
    ]);
  });

  it('notes a local time the spring-forward change skips (01:30 on 2030-03-31 in Europe/London)', async () => {
    await cli('create', '--session', 'demo', '--title', 'Late', '--prompt', 'p', '--cron', '30 1 30,31 3 *', '--tz', 'Europe/London');
    const x = JSON.parse((await cli('explain', '--id', 'sch_1', '--next', '2', '--json')).out) as Explanation;
    expect(x.receipts).toEqual([]);
    expect(x.next.map((o) => [o.at, o.local, o.offset])).toEqual([
      ['2030-03-30T01:30:00.000Z', '2030-03-30T01:30:00', '+00:00'],
      // 01:30 does not exist on 2030-03-31 nor on 2031-03-30 (both spring-forward days).
      ['2031-03-31T00:30:00.000Z', '2031-03-31T01:30:00', '+01:00'],
    ]);
    expect(x.next[0]?.notes).toEqual([]);
    expect(x.next[1]?.notes.join(' ')).toMatch(/2030-03-31.*2031-03-30/);
    const human = await cli('explain', '--id', 'sch_1', '--next', '2');
    expect(human.out).toContain('Last deliveries: none');
    expect(human.out).toMatch(/2031-03-31T00:30:00\.000Z\s+2031-03-31T01:30:00\s+\+01:00\s+\S.*2030-03-31/);
  });

  it('an ended task says it fires no more and lists no next occurrences', async () => {
    await cli('create', '--session', 'ops', '--title', 'Tea', '--prompt', 'tea', '--after', '60');
    await t.advance(60_000);
    const x = JSON.parse((await cli('explain', '--id', 'sch_1', '--json')).out) as Explanation;
    expect(x).toMatchObject({ status: 'inactive', next: [], receipts: [{ scheduledAt: '2030-01-07T08:01:00.000Z' }] });
    const human = await cli('explain', '--id', 'sch_1');
    expect(human.out.split('\n')[0]).toBe('sch_1 "Tea" in Session ops: ended (it fires no more)');
    expect(human.out).not.toContain('Next occurrences');
  });
});

describe('agent-schedule explain: failures and coalesced occurrences', () => {
  it('prints the failure status of a failing delivery (attempts, stage, cause, next retry) until one succeeds', async () => {
    const h = await startFakeSessionHost();
    try {
      const cli = (...argv: string[]) => runCli(h.url, ...argv);
      await cli('create', '--session', 'demo', '--title', 'Tick', '--prompt', 'tick', '--every', '60');
      h.sessions.failNext('demo', 'flush');
      h.sessions.failNext('demo', 'flush');
      await h.clock.advance(60_000);
      await h.clock.advance(5_000);
      const x = JSON.parse((await cli('explain', '--id', 'sch_1', '--json')).out) as Explanation;
      expect(x.failure).toEqual({
        attempts: 2,
        lastAt: '2030-01-07T08:01:05.000Z',
        stage: 'flush',
        message: 'fake Session demo: flush failed',
        nextRetryAt: '2030-01-07T08:01:15.000Z',
      });
      expect((await cli('explain', '--id', 'sch_1')).out.split('\n').slice(0, 4)).toEqual([
        'sch_1 "Tick" in Session demo: active',
        'Timing: every 60 s',
        'Next target: 2030-01-07T08:01:00.000Z (2030-01-07 08:01:00 UTC)',
        'Delivery failing: 2 attempts failed, the latest at 2030-01-07T08:01:05.000Z (stage flush: fake Session demo: flush failed); next retry at 2030-01-07T08:01:15.000Z',
      ]);
      expect((await cli('list', '--session', 'demo')).out.split('\n')[1]).toMatch(/^sch_1\s+demo\s+failing\s+Tick\s/);
      expect((await cli('catalog')).out).toMatch(/sch_1\s+demo\s+failing\s+Tick/);
      const failing = JSON.parse((await cli('catalog', '--state', 'failing', '--json')).out) as CatalogPage<CatalogEntry>;
      expect(failing).toMatchObject({ total: 1, entries: [{ record: { id: 'sch_1' }, failure: { attempts: 2 } }] });

      // The retry succeeds: the receipt is recorded and the failure status cleared.
      await h.clock.advance(10_000);
      const after = await cli('explain', '--id', 'sch_1');
      expect(after.out).not.toContain('Delivery failing');
      expect(after.out).toMatch(/^ {2}2030-01-07T08:01:00\.000Z\s+2030-01-07T08:01:15\.000Z\s+15 s\s+msg-\d+$/m);
      expect((JSON.parse((await cli('explain', '--id', 'sch_1', '--json')).out) as Explanation).failure).toBeUndefined();

      // A task paused after a failed attempt is both; no retry is scheduled while it is paused.
      h.sessions.failNext('demo', 'resolve');
      await h.clock.advance(45_000);
      await cli('pause', '--session', 'demo', '--id', 'sch_1');
      expect((await cli('catalog')).out).toMatch(/sch_1\s+demo\s+paused, failing\s+Tick/);
      expect((await cli('explain', '--id', 'sch_1')).out.split('\n')).toContain(
        'Delivery failing: 1 attempt failed, the latest at 2030-01-07T08:02:00.000Z (stage resolve: fake Session demo: resolve failed); no retry is scheduled',
      );
    } finally {
      await h.close();
    }
  });

  it('says how many occurrences a late delivery coalesced, and since when', async () => {
    await cli('create', '--session', 'demo', '--title', 'Tick', '--prompt', 'tick', '--every', '60');
    await t.send('POST', '/api/test/clock', { set: '2030-01-07T08:05:30.000Z' });
    await t.advance(30_000);
    const x = JSON.parse((await cli('explain', '--id', 'sch_1', '--json')).out) as Explanation;
    expect(x.receipts).toMatchObject([
      { scheduledAt: '2030-01-07T08:06:00.000Z', latenessMs: 0 },
      { scheduledAt: '2030-01-07T08:05:00.000Z', latenessMs: 30_000, missed: 4, firstMissed: '2030-01-07T08:01:00.000Z' },
    ]);
    expect(x.receipts[0]?.missed).toBeUndefined();
    const lines = (await cli('explain', '--id', 'sch_1')).out.split('\n');
    expect(lines.slice(4, 8)).toEqual([
      'Last deliveries, newest first:',
      expect.stringMatching(/^ {2}OCCURRENCE\s+DELIVERED\s+LATE BY\s+MESSAGE\s+NOTES$/),
      expect.stringMatching(/^ {2}2030-01-07T08:06:00\.000Z\s+2030-01-07T08:06:00\.000Z\s+0 ms\s+msg-2$/),
      expect.stringMatching(
        /^ {2}2030-01-07T08:05:00\.000Z\s+2030-01-07T08:05:30\.000Z\s+30 s\s+msg-1\s+4 missed occurrences coalesced since 2030-01-07T08:01:00\.000Z$/,
      ),
    ]);
  });
});

describe('a task the Host does not have', () => {
  it('is worded one way by explain, history, delete, update, pause, resume and run-now (exit 1), and as JSON with --json', async () => {
    const inSession = 'schedule_not_found: No task "sch_9" is stored in Session "demo".';
    for (const argv of [
      ['explain', '--session', 'demo', '--id', 'sch_9'],
      ['history', '--session', 'demo', '--id', 'sch_9'],
      ['delete', '--session', 'demo', '--id', 'sch_9'],
      ['update', '--session', 'demo', '--id', 'sch_9', '--title', 'x'],
      ['pause', '--session', 'demo', '--id', 'sch_9'],
      ['resume', '--session', 'demo', '--id', 'sch_9'],
      ['run-now', '--session', 'demo', '--id', 'sch_9'],
    ]) {
      expect(await cli(...argv), argv.join(' ')).toEqual({ code: 1, out: '', err: inSession });
    }
    expect(await cli('explain', '--id', 'sch_9')).toEqual({
      code: 1,
      out: '',
      err: 'schedule_not_found: No task "sch_9" is stored in any Session.',
    });
    const json = await cli('delete', '--session', 'demo', '--id', 'sch_9', '--json');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.out)).toEqual({ code: 'schedule_not_found', message: 'No task "sch_9" is stored in Session "demo".' });
  });
});

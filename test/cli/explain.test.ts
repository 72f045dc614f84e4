// `agent-schedule explain` against an in-process Host on a test clock (2030-01-07T08:00Z): a
// task's status and timing, its last receipts with lateness, its next occurrences with the DST
// notes of the scheduler's preview, found with or without --session; and a missing task worded
// the same way by explain, delete, history and update.

import type { Explanation } from '../../src/cli/explain.ts';
import { startTestHost, type TestHost } from '../host/support.ts';
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

describe('a task the Host does not have', () => {
  it('is worded one way by explain, history, delete and update (exit 1), and as JSON with --json', async () => {
    const inSession = 'schedule_not_found: No task "sch_9" is stored in Session "demo".';
    for (const argv of [
      ['explain', '--session', 'demo', '--id', 'sch_9'],
      ['history', '--session', 'demo', '--id', 'sch_9'],
      ['delete', '--session', 'demo', '--id', 'sch_9'],
      ['update', '--session', 'demo', '--id', 'sch_9', '--title', 'x'],
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

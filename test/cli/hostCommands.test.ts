// The Host commands of the CLI against an in-process Host on a test clock: create with each
// timing, list, catalog, history, update (with its conflict check) and delete, as tables
// and as JSON; exit 1 with the error code for refusals and for no Host, exit 2 for bad usage.
import { main } from '../../src/cli/main.ts';
import type { CatalogEntry, CatalogPage, ScheduleView } from '../../src/index.ts';
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

const json = <T>(text: string): T => JSON.parse(text) as T;

describe('agent-schedule create', () => {
  it.each([
    [
      ['--cron', '*/15 9-17 * * 1-5', '--tz', 'Asia/Shanghai'],
      { kind: 'cron', expression: '*/15 9-17 * * 1-5', timeZone: 'Asia/Shanghai' },
    ],
    [['--daily', '09:30', '--tz', 'Europe/Berlin'], { kind: 'daily', time: '09:30:00', timeZone: 'Europe/Berlin' }],
    [['--weekly', '09:00', '--weekdays', '3,1', '--tz', 'UTC'], { kind: 'weekly', weekdays: [1, 3] }],
    [['--every', '600'], { kind: 'every', everySeconds: 600, scheduledAt: '2030-01-07T08:10:00.000Z' }],
    [['--after', '90'], { kind: 'after', afterSeconds: 90, scheduledAt: '2030-01-07T08:01:30.000Z' }],
    [['--at', '2030-02-01T09:00:00+08:00'], { kind: 'at', scheduledAt: '2030-02-01T01:00:00.000Z' }],
    [['--at', '2030-02-01T09:00', '--tz', 'Asia/Tokyo'], { kind: 'at', scheduledAt: '2030-02-01T00:00:00.000Z' }],
  ])('%j', async (timing, expected) => {
    const r = await cli('create', '--session', 'demo', '--title', 'T', '--prompt', 'P', ...timing, '--json');
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(json<ScheduleView>(r.out)).toMatchObject({ title: 'T', prompt: 'P', ...expected });
  });

  it('prints a table by default', async () => {
    const r = await cli(
      'create',
      '--session',
      'demo',
      '--title',
      'Build',
      '--prompt',
      'check',
      '--cron',
      '0 9 * * 1-5',
      '--tz',
      'Asia/Shanghai',
    );
    expect(r.code).toBe(0);
    const [header, row] = r.out.split('\n');
    expect(header).toMatch(/^ID\s+SESSION\s+STATUS\s+TITLE\s+NEXT \(UTC\)\s+NEXT \(LOCAL\)\s+TIMING$/);
    expect(row).toMatch(
      /^sch_1\s+demo\s+active\s+Build\s+2030-01-08T01:00:00\.000Z\s+2030-01-08 09:00:00 Asia\/Shanghai\s+cron "0 9 \* \* 1-5" Asia\/Shanghai$/,
    );
  });

  it('a value the Host refuses exits 1 with its error code', async () => {
    const r = await cli('create', '--session', 'demo', '--title', 'T', '--prompt', 'P', '--cron', '0 9 * * MON', '--tz', 'UTC');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^invalid_rule: /);
    expect((await cli('create', '--session', 'demo', '--title', 'T', '--prompt', 'P', '--daily', '09:00', '--tz', 'EST')).err).toMatch(
      /^invalid_time_zone: /,
    );
  });

  it.each([
    [['--title', 'T', '--prompt', 'P', '--after', '60'], /--session is required/],
    [['--session', 'demo', '--title', 'T', '--prompt', 'P'], /Give a timing/],
    [['--session', 'demo', '--title', 'T', '--prompt', 'P', '--after', '60', '--every', '60'], /Give one timing/],
    [['--session', 'demo', '--title', 'T', '--prompt', 'P', '--cron', '* * * * *'], /--cron needs --tz/],
    [['--session', 'demo', '--title', 'T', '--prompt', 'P', '--every', '60', '--tz', 'UTC'], /--tz does not apply/],
    [['--session', 'demo', '--title', 'T', '--prompt', 'P', '--weekly', '09:00', '--tz', 'UTC'], /--weekdays/],
    [['--session', 'demo', '--bogus'], /Unknown option --bogus\./],
  ])('bad usage %j exits 2 with one line and a hint', async (args, message) => {
    const r = await cli('create', ...args);
    expect(r.code).toBe(2);
    const [line, hint, ...more] = r.err.split('\n');
    expect(line).toMatch(message);
    expect(hint).toBe('Run `agent-schedule create --help` for its options.');
    expect(more).toEqual([]);
  });
});

describe('agent-schedule list, catalog, history, update, delete', () => {
  beforeEach(async () => {
    await cli('create', '--session', 'demo', '--title', 'Tick', '--prompt', 'tick', '--every', '60');
    await cli('create', '--session', 'ops', '--title', 'Tea', '--prompt', 'tea', '--after', '30');
    await t.advance(60_000);
  });

  it('list --session shows that Session’s active tasks', async () => {
    const r = await cli('list', '--session', 'demo', '--json');
    expect(json<ScheduleView[]>(r.out).map((v) => v.title)).toEqual(['Tick']);
    expect((await cli('list', '--session', 'ops')).out).toBe('(no tasks)');
    expect((await cli('list')).code).toBe(2);
  });

  it('catalog shows active and inactive tasks', async () => {
    const r = await cli('catalog');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/sch_1\s+demo\s+active\s+Tick/);
    expect(r.out).toMatch(/sch_2\s+ops\s+inactive\s+Tea\s+-\s+-\s+once, 30 s after creation/);
    expect(json<CatalogPage<CatalogEntry>>((await cli('catalog', '--json')).out)).toMatchObject({ total: 2, entries: [{}, {}] });
  });

  it('history pages with --limit and --before', async () => {
    await t.advance(60_000);
    const first = await cli('history', '--session', 'demo', '--id', 'sch_1', '--limit', '1');
    expect(first.out.split('\n')).toEqual([
      expect.stringMatching(/^OCCURRENCE\s+DELIVERED\s+MESSAGE$/),
      expect.stringMatching(/^2030-01-07T08:02:00\.000Z\s+2030-01-07T08:02:00\.000Z\s+msg-2$/),
      'older deliveries: --before msg-2',
    ]);
    const older = await cli('history', '--session', 'demo', '--id', 'sch_1', '--limit', '1', '--before', 'msg-2', '--json');
    expect(json<{ records: Array<{ messageId: string }> }>(older.out).records.map((r) => r.messageId)).toEqual(['msg-1']);
    const bad = await cli('history', '--session', 'demo', '--id', 'sch_1', '--limit', '500');
    expect(bad).toMatchObject({ code: 1, err: expect.stringMatching(/^invalid_rule: /) });
  });

  it('update changes title and timing; an unknown task is schedule_not_found; nothing to change is usage', async () => {
    const r = await cli(
      'update',
      '--session',
      'demo',
      '--id',
      'sch_1',
      '--title',
      'Tock',
      '--daily',
      '07:00',
      '--tz',
      'Asia/Tokyo',
      '--json',
    );
    expect(r.code).toBe(0);
    expect(json<ScheduleView>(r.out)).toMatchObject({ title: 'Tock', kind: 'daily', scheduledAt: '2030-01-07T22:00:00.000Z' });
    expect((await cli('update', '--session', 'demo', '--id', 'sch_9', '--title', 'x')).err).toMatch(/^schedule_not_found: /);
    expect((await cli('update', '--session', 'ops', '--id', 'sch_2', '--title', 'x')).err).toMatch(/^schedule_ended: /);
    expect((await cli('update', '--session', 'demo', '--id', 'sch_1')).code).toBe(2);
    expect((await cli('update', '--session', 'demo', '--id', 'sch_1', '--after', '60')).code).toBe(2);
  });

  it('delete removes a task; deleting it again exits 1 with schedule_not_found', async () => {
    expect(await cli('delete', '--session', 'demo', '--id', 'sch_1')).toEqual({ code: 0, out: 'deleted sch_1', err: '' });
    const again = await cli('delete', '--session', 'demo', '--id', 'sch_1');
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/^schedule_not_found: /);
  });
});

describe('no Host', () => {
  it('exits 1 with host_unreachable', async () => {
    const url = t.url;
    await t.close();
    const err: string[] = [];
    const code = await main(['catalog', '--url', url], { out: () => undefined, err: (l) => err.push(l) });
    expect(code).toBe(1);
    expect(err.join('\n')).toMatch(/^host_unreachable: No Host answers at http:\/\/127\.0\.0\.1:\d+/);
    t = await startTestHost();
  });
});

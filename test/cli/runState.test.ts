// `agent-schedule pause`, `resume` and `run-now` against an in-process Host on a test clock
// (2030-01-07T08:00Z): a paused task shows as paused in list, catalog and explain and is not
// delivered; resume moves a recurring one past what it missed; run now delivers once with a
// manual receipt; a pause's --note is shown until resume; refusals (schedule_not_found,
// schedule_ended) and bad usage in text and --json.
import type { CatalogEntry, CatalogPage, ScheduleView } from '../../src/index.ts';
import { startTestHost, type TestHost } from '../host/support.ts';
import { runCli } from './support.ts';

let t: TestHost;
beforeEach(async () => {
  t = await startTestHost();
  await cli('create', '--session', 'demo', '--title', 'Tick', '--prompt', 'tick', '--every', '60');
});
afterEach(async () => {
  await t.close();
});

const cli = (...argv: string[]) => runCli(t.url, ...argv);
const json = <T>(text: string): T => JSON.parse(text) as T;
const task = ['--session', 'demo', '--id', 'sch_1'];
const receipts = async () => json<{ records: Array<Record<string, unknown>> }>((await cli('history', ...task, '--json')).out).records;

describe('agent-schedule pause and resume', () => {
  it('pause prints since when; list and catalog show the task paused; nothing is delivered while paused', async () => {
    expect(await cli('pause', ...task)).toEqual({ code: 0, out: 'sch_1 is paused since 2030-01-07T08:00:00.000Z', err: '' });
    await t.advance(150_000);
    expect(await receipts()).toEqual([]);
    const list = await cli('list', '--session', 'demo');
    expect(list.out.split('\n')[1]).toMatch(/^sch_1\s+demo\s+paused\s+Tick\s+2030-01-07T08:01:00\.000Z\s/);
    expect(json<ScheduleView[]>((await cli('list', '--session', 'demo', '--json')).out)).toMatchObject([
      { id: 'sch_1', state: 'paused', pausedAt: '2030-01-07T08:00:00.000Z' },
    ]);
    expect((await cli('catalog')).out).toMatch(/sch_1\s+demo\s+paused\s+Tick/);
    expect(json<CatalogPage<CatalogEntry>>((await cli('catalog', '--json')).out).entries[0]?.pausedAt).toBe('2030-01-07T08:00:00.000Z');
    const explained = (await cli('explain', '--id', 'sch_1')).out.split('\n');
    expect(explained[0]).toBe(
      'sch_1 "Tick" in Session demo: paused since 2030-01-07T08:00:00.000Z (not delivered until resumed or run now)',
    );
    expect(explained).toContain('Next occurrences (none is delivered while the task is paused):');
    expect(json<{ pausedAt?: string }>((await cli('explain', '--id', 'sch_1', '--json')).out).pausedAt).toBe('2030-01-07T08:00:00.000Z');
  });

  it('pause --note keeps why: printed, shown by explain (text and --json), replaced by another --note, dropped by resume', async () => {
    expect(await cli('pause', ...task, '--note', 'Vendor outage')).toEqual({
      code: 0,
      out: 'sch_1 is paused since 2030-01-07T08:00:00.000Z: Vendor outage',
      err: '',
    });
    const explained = (await cli('explain', '--id', 'sch_1')).out.split('\n');
    expect(explained.slice(0, 3)).toEqual([
      'sch_1 "Tick" in Session demo: paused since 2030-01-07T08:00:00.000Z (not delivered until resumed or run now)',
      'Timing: every 60 s',
      'Pause note: Vendor outage',
    ]);
    expect(json<{ pauseNote?: string }>((await cli('explain', '--id', 'sch_1', '--json')).out).pauseNote).toBe('Vendor outage');
    expect((await cli('pause', ...task, '--note', 'Back on Monday')).out).toBe(
      'sch_1 is paused since 2030-01-07T08:00:00.000Z: Back on Monday',
    );
    const tooLong = await cli('pause', ...task, '--note', 'x'.repeat(501));
    expect(tooLong.code).toBe(1);
    expect(tooLong.err).toContain('invalid_selector');
    await cli('resume', ...task);
    expect((await cli('explain', '--id', 'sch_1')).out).not.toContain('Pause note');
  });

  it('pause --json answers the view; pausing again keeps the first instant', async () => {
    const r = await cli('pause', ...task, '--json');
    expect(r.code).toBe(0);
    expect(json<ScheduleView>(r.out)).toMatchObject({ id: 'sch_1', state: 'paused', pausedAt: '2030-01-07T08:00:00.000Z' });
    await t.advance(10_000);
    expect((await cli('pause', ...task)).out).toBe('sch_1 is paused since 2030-01-07T08:00:00.000Z');
  });

  it('resume moves a recurring task to its first target after now, without the occurrences it missed', async () => {
    await cli('pause', ...task);
    await t.advance(150_000);
    expect(await cli('resume', ...task)).toEqual({ code: 0, out: 'sch_1 is resumed; next target 2030-01-07T08:03:00.000Z', err: '' });
    expect((await cli('list', '--session', 'demo')).out.split('\n')[1]).toMatch(
      /^sch_1\s+demo\s+active\s+Tick\s+2030-01-07T08:03:00\.000Z/,
    );
    await t.advance(30_000);
    expect(await receipts()).toMatchObject([{ scheduledAt: '2030-01-07T08:03:00.000Z' }]);
    const view = json<ScheduleView>((await cli('resume', ...task, '--json')).out);
    expect(view).toMatchObject({ state: 'scheduled', scheduledAt: '2030-01-07T08:04:00.000Z' });
    expect(view.pausedAt).toBeUndefined();
  });
});

describe('agent-schedule run-now', () => {
  it('delivers a paused task once with a manual receipt, keeps it paused and its target', async () => {
    await cli('pause', ...task);
    await t.advance(30_000);
    expect(await cli('run-now', ...task)).toEqual({
      code: 0,
      out: 'sch_1 runs now: one delivery as soon as Session demo can take it',
      err: '',
    });
    await t.advance(0);
    expect(await receipts()).toEqual([
      {
        scheduledAt: '2030-01-07T08:00:30.000Z',
        deliveredAt: '2030-01-07T08:00:30.000Z',
        messageId: 'msg-1',
        prompt: 'tick',
        trigger: 'manual',
      },
    ]);
    expect((await cli('list', '--session', 'demo')).out).toMatch(/sch_1\s+demo\s+paused\s+Tick\s+2030-01-07T08:01:00\.000Z/);
    const explained = (await cli('explain', '--id', 'sch_1')).out.split('\n');
    expect(explained).toContainEqual(expect.stringMatching(/^ {2}OCCURRENCE\s+DELIVERED\s+LATE BY\s+MESSAGE\s+NOTES$/));
    expect(explained).toContainEqual(
      expect.stringMatching(/^ {2}2030-01-07T08:00:30\.000Z\s+2030-01-07T08:00:30\.000Z\s+0 ms\s+msg-1\s+run now$/),
    );
  });

  it('--json answers the view; a one-shot run now ends with that delivery', async () => {
    await cli('create', '--session', 'demo', '--title', 'Tea', '--prompt', 'tea', '--after', '3600');
    const r = await cli('run-now', '--session', 'demo', '--id', 'sch_2', '--json');
    expect(r.code).toBe(0);
    expect(json<ScheduleView>(r.out)).toMatchObject({ id: 'sch_2', kind: 'after', state: 'scheduled' });
    await t.advance(0);
    expect((await cli('catalog')).out).toMatch(/sch_2\s+demo\s+inactive\s+Tea/);
    const history = json<{ records: unknown[] }>((await cli('history', '--session', 'demo', '--id', 'sch_2', '--json')).out);
    expect(history.records).toMatchObject([{ scheduledAt: '2030-01-07T08:00:00.000Z', trigger: 'manual' }]);
  });
});

describe('refusals and usage', () => {
  it.each(['pause', 'resume', 'run-now'])(
    '%s of a missing task is schedule_not_found, of an ended one schedule_ended (exit 1)',
    async (name) => {
      expect(await cli(name, '--session', 'demo', '--id', 'sch_9')).toEqual({
        code: 1,
        out: '',
        err: 'schedule_not_found: No task "sch_9" is stored in Session "demo".',
      });
      expect(await cli(name, '--session', 'ops', '--id', 'sch_1')).toEqual({
        code: 1,
        out: '',
        err: 'schedule_not_found: No task "sch_1" is stored in Session "ops".',
      });
      const missing = await cli(name, '--session', 'demo', '--id', 'sch_9', '--json');
      expect(missing.code).toBe(1);
      expect(json(missing.out)).toEqual({ code: 'schedule_not_found', message: 'No task "sch_9" is stored in Session "demo".' });

      await cli('create', '--session', 'demo', '--title', 'Tea', '--prompt', 'tea', '--after', '30');
      await t.advance(30_000);
      const ended = await cli(name, '--session', 'demo', '--id', 'sch_2');
      expect(ended).toMatchObject({ code: 1, out: '' });
      expect(ended.err).toMatch(/^schedule_ended: \S/);
      const endedJson = await cli(name, '--session', 'demo', '--id', 'sch_2', '--json');
      expect(endedJson.code).toBe(1);
      expect(json(endedJson.out)).toEqual({ code: 'schedule_ended', message: expect.any(String) });
    },
  );

  it.each([
    [['pause', '--id', 'sch_1'], '--session is required.', 'pause'],
    [['resume', '--session', 'demo'], '--id is required.', 'resume'],
    [
      ['run-now', '--id', 'sch_1', '--session', '--verbose'],
      '--session needs a value; to give one that starts with "-", write --session=--verbose.',
      'run-now',
    ],
    [['run-now', '--session', 'demo', '--id', 'sch_1', '--all'], 'Unknown option --all.', 'run-now'],
    [['pause', '--session', 'demo', 'sch_1'], 'Unexpected argument "sch_1": each value follows its option, as in --name value.', 'pause'],
  ])('%j is bad usage: one line and a hint, exit 2', async (argv, line, name) => {
    expect(await cli(...argv)).toEqual({ code: 2, out: '', err: `${line}\nRun \`agent-schedule ${name} --help\` for its options.` });
    const asJson = await cli(...argv, '--json');
    expect(asJson.code).toBe(2);
    expect(json(asJson.out)).toEqual({ code: 'usage_error', message: line });
  });

  it('each has --help and is in the command list', async () => {
    for (const name of ['pause', 'resume', 'run-now']) {
      const help = await cli(name, '--help');
      expect(help.code).toBe(0);
      const note = name === 'pause' ? ' [--note <text>]' : '';
      expect(help.out.split('\n')[0]).toBe(`Usage: agent-schedule ${name} --session <id> --id <task>${note} [--url <url>] [--json]`);
    }
    const list = (await cli('--help')).out;
    expect(list).toMatch(/^ {2}pause\s+pause a task/m);
    expect(list).toMatch(/^ {2}resume\s+resume a paused task/m);
    expect(list).toMatch(/^ {2}run-now\s+deliver a task once now/m);
  });
});

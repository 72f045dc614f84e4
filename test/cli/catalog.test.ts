// `agent-schedule catalog` against an in-process Host on a test clock: filters by Session, state
// (with `ended` for inactive), kind and text; paging with --limit and the printed --cursor until
// the last page; the page answer as --json; a filter value or cursor the Host refuses is printed
// with its code (exit 1), a malformed --limit is bad usage (exit 2).
import type { CatalogEntry, CatalogPage } from '../../src/index.ts';
import { startTestHost, type TestHost } from '../host/support.ts';
import { runCli } from './support.ts';

let t: TestHost;
beforeEach(async () => {
  t = await startTestHost();
  // Six tasks: five in demo (one every 10 minutes, four single ones), one in ops that has ended.
  await cli('create', '--session', 'demo', '--title', 'Tick', '--prompt', 'tick', '--every', '600');
  for (const seconds of ['120', '180', '240', '300'])
    await cli('create', '--session', 'demo', '--title', `Once ${seconds}`, '--prompt', 'once', '--after', seconds);
  await cli('create', '--session', 'ops', '--title', 'Tea', '--prompt', 'brew tea', '--after', '30');
  await t.advance(60_000);
});
afterEach(async () => {
  await t.close();
});

const cli = (...argv: string[]) => runCli(t.url, ...argv);
const page = (text: string) => JSON.parse(text) as CatalogPage<CatalogEntry>;
const ids = (text: string) => page(text).entries.map((e) => e.record.id);

describe('agent-schedule catalog filters', () => {
  it.each([
    [['--session', 'ops'], ['sch_6']],
    [['--state', 'ended'], ['sch_6']],
    [['--status', 'inactive'], ['sch_6']],
    [['--state', 'scheduled', '--kind', 'every'], ['sch_1']],
    [['--text', 'TEA'], ['sch_6']],
    [
      ['--session', 'demo', '--kind', 'after', '--sort', 'title'],
      ['sch_2', 'sch_3', 'sch_4', 'sch_5'],
    ],
  ])('%j', async (filters, expected) => {
    const r = await cli('catalog', ...filters, '--json');
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(ids(r.out)).toEqual(expected);
  });

  it('prints the page as a table with how many tasks match, under the counts per state', async () => {
    const r = await cli('catalog', '--session', 'ops');
    expect(r.out.split('\n')).toEqual([
      'Session ops: scheduled 0 · overdue 0 · paused 0 · failing 0 · ended 1',
      'all Sessions: scheduled 5 · overdue 0 · paused 0 · failing 0 · ended 1',
      expect.stringMatching(/^ID\s+SESSION\s+STATUS\s+TITLE\s+NEXT \(UTC\)\s+NEXT \(LOCAL\)\s+TIMING$/),
      expect.stringMatching(/^sch_6\s+ops\s+inactive\s+Tea\s+-\s+-\s+once, 30 s after creation$/),
      'showing 1 of 1 matching tasks',
    ]);
    expect((await cli('catalog', '--session', 'nobody')).out.split('\n').at(-1)).toBe('(no tasks)');
    expect((await cli('catalog', '--state', 'ended')).out.split('\n')[0]).toBe('scheduled 5 · overdue 0 · paused 0 · failing 0 · ended 1');
  });

  it('--json is the page: entries, total, the counts, and nextCursor while more match', async () => {
    const all = { scheduled: 5, overdue: 0, paused: 0, failing: 0, ended: 1, total: 6 };
    const first = page((await cli('catalog', '--limit', '2', '--json')).out);
    expect(Object.keys(first)).toEqual(expect.arrayContaining(['entries', 'nextCursor', 'total', 'counts']));
    expect(first).toMatchObject({ total: 6, nextCursor: expect.stringMatching(/^c1\./), counts: { all } });
    expect(first.counts.session).toBeUndefined();
    expect(first.entries[0]).toMatchObject({ sessionId: 'demo', status: 'active', record: { id: 'sch_2', title: 'Once 120' } });
    const last = page((await cli('catalog', '--session', 'ops', '--json')).out);
    expect(last).toMatchObject({
      entries: [expect.objectContaining({ sessionId: 'ops' })],
      total: 1,
      counts: { all, session: { scheduled: 0, overdue: 0, paused: 0, failing: 0, ended: 1, total: 1 } },
    });
    expect(last.entries).toHaveLength(1);
    expect(last.nextCursor).toBeUndefined();
  });
});

describe('agent-schedule catalog paging', () => {
  it('follows the printed --cursor until the last page, which has none', async () => {
    const seen: string[] = [];
    const footers: string[] = [];
    let cursor: string[] = [];
    for (let pages = 0; pages < 10; pages += 1) {
      const r = await cli('catalog', '--limit', '2', ...cursor);
      expect(r).toMatchObject({ code: 0, err: '' });
      const lines = r.out.split('\n');
      // Under the counts line and the table's header.
      seen.push(...lines.slice(2, -1).map((l) => l.split(/\s+/)[0] ?? ''));
      const footer = lines.at(-1) ?? '';
      footers.push(footer.replace(/--cursor \S+$/, '--cursor …'));
      const next = /; next page: --cursor (\S+)$/.exec(footer)?.[1];
      if (next === undefined) break;
      cursor = ['--cursor', next];
    }
    expect(seen).toEqual(['sch_2', 'sch_3', 'sch_4', 'sch_5', 'sch_1', 'sch_6']);
    expect(footers).toEqual([
      'showing 2 of 6 matching tasks; next page: --cursor …',
      'showing 2 of 6 matching tasks; next page: --cursor …',
      'showing 2 of 6 matching tasks',
    ]);
  });

  it('pages by JSON with a filter and a sort', async () => {
    const seen: string[] = [];
    let next: string | undefined;
    do {
      const r = await cli(
        'catalog',
        '--session',
        'demo',
        '--sort',
        'title',
        '--limit',
        '3',
        ...(next === undefined ? [] : ['--cursor', next]),
        '--json',
      );
      const answer = page(r.out);
      seen.push(...answer.entries.map((e) => e.record.title));
      next = answer.nextCursor;
    } while (next !== undefined);
    expect(seen).toEqual(['Once 120', 'Once 180', 'Once 240', 'Once 300', 'Tick']);
  });
});

describe('agent-schedule catalog refusals', () => {
  it.each([
    [['--state', 'sleeping'], /^invalid_selector: filter\.status "sleeping" is not accepted: use .*"failing"/],
    [['--kind', 'hourly'], /^invalid_selector: filter\.kind "hourly" is not accepted/],
    [['--sort', 'random'], /^invalid_selector: sort "random" is not accepted/],
    [['--cursor', 'nonsense'], /^invalid_selector: cursor "nonsense" is not accepted/],
    [['--limit', '501'], /^invalid_rule: limit 501 is not accepted: use an integer from 1 to 500\./],
  ])('%j exits 1 with the Host’s code', async (options, message) => {
    const r = await cli('catalog', ...options);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toMatch(message);
  });

  it('a refusal with --json is {code, message} on stdout', async () => {
    const r = await cli('catalog', '--kind', 'hourly', '--json');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out)).toEqual({ code: 'invalid_selector', message: expect.stringContaining('filter.kind') });
  });

  it.each([
    [['--limit', 'ten'], '--limit takes a whole number from 1 to 500, such as --limit 50; got "ten".'],
    [['--state', 'paused', '--status', 'failing'], 'Give --state or --status, not both.'],
    [['--drifted'], 'Unknown option --drifted.'],
  ])('%j is bad usage, exit 2', async (options, line) => {
    const r = await cli('catalog', ...options);
    expect(r.code).toBe(2);
    expect(r.err.split('\n')).toEqual([line, 'Run `agent-schedule catalog --help` for its options.']);
  });
});

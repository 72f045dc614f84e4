// The Host commands on a schedule of thousands of tasks (a schedule.json written straight into
// the data folder of an in-process Host on a test clock): `explain` reads the one task by the
// catalog's `id` filter, never the whole catalog; `catalog` prints the counts per state above
// the page; `drift` lists the first 50 drifted targets and their number (`--limit`, `--all`);
// and, on a Host with fake Sessions, `catalog --state failing --json` is the page of the tasks
// whose delivery failed.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Explanation } from '../../src/cli/explain.ts';
import type { CatalogEntry, CatalogPage, DriftPage } from '../../src/index.ts';
import { startTestHost, type TestHost } from '../host/support.ts';
import { startFakeSessionHost } from './fakeSessionHost.ts';
import { runCli } from './support.ts';

const TASKS = 3_000;
const DRIFTED = 120;
const DAY_MS = 86_400_000;

/**
 * Task n: the first DRIFTED are daily 09:00 Paris tasks stored at 08:00 Paris (as older zone data
 * would have left them), one winter day apart from 2030-01-08; the others fire every hour from
 * 2030-01-07T09:00Z on, every tenth of them paused and every 25th ended.
 */
function task(n: number) {
  const base = { id: `sch_${n}`, title: `Task ${n}`, prompt: `Check project ${n}.` };
  if (n <= DRIFTED) {
    const scheduledAt = new Date(Date.parse('2030-01-08T07:00:00.000Z') + ((n * 7) % 60) * DAY_MS).toISOString();
    return {
      sessionId: `s${n % 40}`,
      status: 'active',
      record: { ...base, kind: 'daily', scheduledAt, time: '09:00:00', timeZone: 'Europe/Paris' },
    };
  }
  return {
    sessionId: `s${n % 40}`,
    status: n % 25 === 0 ? 'inactive' : 'active',
    record: { ...base, kind: 'every', everySeconds: 3600, scheduledAt: '2030-01-07T09:00:00.000Z' },
    ...(n % 25 !== 0 && n % 10 === 0 ? { pausedAt: '2030-01-07T07:00:00.000Z' } : {}),
  };
}

let t: TestHost;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agent-schedule-cli-scale-'));
  const tasks = Array.from({ length: TASKS }, (_, i) => task(i + 1));
  await writeFile(join(dir, 'schedule.json'), JSON.stringify({ version: 1, nextTaskNumber: TASKS + 1, tasks }));
  t = await startTestHost({ keepDataDir: dir });
});
afterAll(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

const cli = (...argv: string[]) => runCli(t.url, ...argv);

/** The paths (with their queries) the CLI asks for while `run` runs against a recording proxy in front of the Host. */
async function pathsAsked(run: (url: string) => Promise<unknown>): Promise<string[]> {
  const asked: string[] = [];
  const proxy = createServer((incoming, outgoing) => {
    asked.push(incoming.url ?? '');
    const forward = request(
      `${t.url}${incoming.url ?? ''}`,
      { method: incoming.method, headers: { accept: 'application/json' } },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, { 'content-type': answer.headers['content-type'] ?? 'application/json' });
        answer.pipe(outgoing);
      },
    );
    incoming.pipe(forward);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  try {
    await run(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`);
  } finally {
    await new Promise((resolve) => proxy.close(resolve));
  }
  return asked;
}

// 3,000 tasks: 120 drifted daily ones, and of the 2,880 hourly ones 116 ended and 230 paused.
const ENDED = 116;
const PAUSED = 230;

describe(`the CLI on a Host of ${TASKS.toLocaleString('en-US')} tasks`, () => {
  it('explain without --session reads the one task by the catalog’s id filter, not the whole catalog', async () => {
    let r = { code: -1, out: '', err: '' };
    const asked = await pathsAsked(async (url) => {
      r = await runCli(url, 'explain', '--id', 'sch_2345', '--json');
    });
    expect(r).toMatchObject({ code: 0, err: '' });
    const x = JSON.parse(r.out) as Explanation;
    expect(x).toMatchObject({ sessionId: 's25', status: 'active', record: { id: 'sch_2345', title: 'Task 2345' } });
    expect(asked).toEqual(['/api/catalog?id=sch_2345&limit=1', '/api/sessions/s25/tasks/sch_2345/history?limit=5']);
    expect((await cli('explain', '--id', 'sch_2345')).out.split('\n')[0]).toBe('sch_2345 "Task 2345" in Session s25: active');
    expect(await cli('explain', '--id', 'sch_99999')).toEqual({
      code: 1,
      out: '',
      err: 'schedule_not_found: No task "sch_99999" is stored in any Session.',
    });
  });

  it('catalog prints the counts per state of the whole schedule above the page, and the Session’s with --session', async () => {
    const all = `scheduled ${(TASKS - ENDED - PAUSED).toLocaleString('en-US')} · overdue 0 · paused ${PAUSED} · failing 0 · ended ${ENDED}`;
    const r = await cli('catalog', '--limit', '3');
    const lines = r.out.split('\n');
    expect(lines[0]).toBe(all);
    expect(lines.at(-1)).toMatch(/^showing 3 of 3,000 matching tasks; next page: --cursor \S+$/);
    const paused = await cli('catalog', '--state', 'paused', '--session', 's10', '--limit', '1');
    expect(paused.out.split('\n').slice(0, 2)).toEqual([
      expect.stringMatching(/^Session s10: scheduled \d+ · overdue 0 · paused \d+ · failing 0 · ended \d+$/),
      `all Sessions: ${all}`,
    ]);
    const json = JSON.parse((await cli('catalog', '--state', 'paused', '--limit', '1', '--json')).out) as CatalogPage<CatalogEntry>;
    expect(json).toMatchObject({ total: PAUSED, counts: { all: { paused: PAUSED, ended: ENDED, total: TASKS } } });
  });

  it('drift lists the first 50 drifted targets and how many there are; --limit and --all ask for fewer or every one', async () => {
    const rowsOf = (out: string) => out.split('\n').filter((line) => /^s\d+\s+sch_\d+\s/.test(line));
    const first = await cli('drift');
    expect(first.code).toBe(0);
    expect(rowsOf(first.out)).toHaveLength(50);
    expect(first.out.split('\n').at(-1)).toBe(`showing 50 of ${DRIFTED} drifted targets; --all lists every one`);

    const json = JSON.parse((await cli('drift', '--limit', '5', '--json')).out) as DriftPage;
    expect(json.total).toBe(DRIFTED);
    const every = JSON.parse((await cli('drift', '--all', '--json')).out) as DriftPage;
    expect(every.tasks).toHaveLength(DRIFTED);
    expect(json.tasks).toEqual(every.tasks.slice(0, 5));

    const all = await cli('drift', '--all');
    expect(rowsOf(all.out)).toHaveLength(DRIFTED);
    expect(all.out).not.toContain('showing');
    expect(await cli('drift', '--all', '--limit', '5')).toMatchObject({
      code: 2,
      err: expect.stringContaining('Give --limit or --all, not both.'),
    });
    expect(await cli('drift', '--limit', '501')).toMatchObject({ code: 1, err: expect.stringMatching(/^invalid_rule: limit 501/) });
  });
});

describe('catalog --state failing against a running Host', () => {
  it('prints the page of the tasks whose latest delivery failed, and counts them', async () => {
    const h = await startFakeSessionHost();
    try {
      const run = (...argv: string[]) => runCli(h.url, ...argv);
      for (let i = 0; i < 12; i++)
        await run('create', '--session', `a${i % 3}`, '--title', `Hourly ${i}`, '--prompt', 'p', '--every', '3600');
      await run('create', '--session', 'b', '--title', 'Minutely', '--prompt', 'p', '--every', '60');
      h.sessions.failNext('b', 'flush');
      await h.clock.advance(60_000);
      const r = await run('catalog', '--state', 'failing', '--json');
      expect(r).toMatchObject({ code: 0, err: '' });
      const page = JSON.parse(r.out) as CatalogPage<CatalogEntry>;
      expect(page).toMatchObject({
        total: 1,
        entries: [{ sessionId: 'b', record: { id: 'sch_13', title: 'Minutely' }, failure: { attempts: 1, stage: 'flush' } }],
        counts: { all: { failing: 1, total: 13 } },
      });
      expect(page.entries).toHaveLength(1);
      expect((await run('catalog', '--state', 'failing')).out.split('\n')[0]).toBe(
        // The failed task waits for its retry: overdue, and failing as well.
        'scheduled 12 · overdue 1 · paused 0 · failing 1 · ended 0',
      );
    } finally {
      await h.close();
    }
  });
});

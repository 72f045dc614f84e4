// `agent-schedule drift` and `agent-schedule reanchor` against an in-process Host whose
// schedule.json holds a target as older time-zone data would have left it (08:00 Paris for a
// 09:00 rule), and the HTTP routes behind them.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestHost, type TestHost } from '../host/support.ts';
import { runCli } from './support.ts';

let t: TestHost;
let dir: string;

const task = (n: number, sessionId: string) => ({
  sessionId,
  status: 'active',
  record: {
    id: `sch_${n}`,
    kind: 'daily',
    title: `Plan ${n}`,
    prompt: 'Plan the day',
    scheduledAt: '2030-01-08T07:00:00.000Z',
    time: '09:00:00',
    timeZone: 'Europe/Paris',
  },
});

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agent-schedule-drift-'));
  await writeFile(
    join(dir, 'schedule.json'),
    JSON.stringify({ version: 1, nextTaskNumber: 4, tasks: [task(1, 'a'), task(2, 'a'), task(3, 'b')] }),
  );
  t = await startTestHost({ keepDataDir: dir });
});
afterEach(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

const cli = (...argv: string[]) => runCli(t.url, ...argv);

describe('agent-schedule drift and reanchor', () => {
  it('lists drifted targets, re-anchors one, then the rest of a Session, then all', async () => {
    const listed = await cli('drift');
    expect(listed.code).toBe(0);
    const lines = listed.out.split('\n');
    expect(lines[0]).toMatch(/^time-zone data \S+; schedule written with \(not recorded\)$/);
    expect(lines[1]).toMatch(/^SESSION\s+ID\s+TARGET\s+LOCAL\s+OCCURRENCE$/);
    expect(lines[2]).toMatch(/^a\s+sch_1\s+2030-01-08T07:00:00\.000Z\s+2030-01-08T08:00:00\+01:00\s+2030-01-08T08:00:00\.000Z$/);
    expect(lines).toHaveLength(5);

    expect(await cli('reanchor', '--session', 'a', '--id', 'sch_1')).toMatchObject({
      code: 0,
      out: 'sch_1 is at 2030-01-08T08:00:00.000Z',
    });
    expect(await cli('reanchor', '--session', 'a', '--id', 'sch_1')).toMatchObject({
      code: 0,
      out: 'sch_1 is at 2030-01-08T08:00:00.000Z',
    });
    expect(await cli('reanchor', '--all', '--session', 'a')).toMatchObject({
      code: 0,
      out: 're-anchored sch_2 to 2030-01-08T08:00:00.000Z',
    });
    const all = await cli('reanchor', '--all', '--json');
    expect(JSON.parse(all.out)).toMatchObject({ reanchored: [{ id: 'sch_3', scheduledAt: '2030-01-08T08:00:00.000Z' }] });
    expect((await cli('drift')).out.split('\n').slice(1)).toEqual(['(no drifted targets)']);
    // The re-anchoring writes recorded the time-zone data version in use.
    const report = await t.get<{ tzdata: string; writtenWith: string; tasks: unknown[] }>('/api/drift');
    expect(report).toMatchObject({ status: 200, body: { tasks: [] } });
    expect(report.body.writtenWith).toBe(report.body.tzdata);
  });

  it('refuses a missing task and bad usage', async () => {
    expect((await cli('reanchor', '--session', 'a', '--id', 'sch_9')).code).toBe(1);
    expect((await cli('reanchor', '--session', 'a')).code).toBe(2);
    expect((await cli('reanchor', '--all', '--id', 'sch_1')).code).toBe(2);
  });
});

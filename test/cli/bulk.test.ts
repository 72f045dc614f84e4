// `agent-schedule bulk` against an in-process Host on a test clock: pause by filter across
// Sessions, resume by listed ids (one --id followed by more ids, or --id repeated), run now, the
// one-line answer with skipped reasons and the --json answer; bad usage (no action, an unknown
// action, no selection, --id without --session) exits 2, a request the Host refuses exits 1.
import type { BulkResult } from '../../src/index.ts';
import { startTestHost, type TestHost } from '../host/support.ts';
import { runCli } from './support.ts';

let t: TestHost;
beforeEach(async () => {
  t = await startTestHost();
  for (const session of ['garden', 'garden', 'kitchen', 'kitchen'])
    await cli('create', '--session', session, '--title', `Water ${session}`, '--prompt', 'water', '--every', '3600');
  await cli('create', '--session', 'kitchen', '--title', 'Tea', '--prompt', 'brew tea', '--after', '30');
});
afterEach(async () => {
  await t.close();
});

const cli = (...argv: string[]) => runCli(t.url, ...argv);

describe('agent-schedule bulk', () => {
  it('pauses the tasks a filter selects across Sessions, then counts those already paused as skipped', async () => {
    expect(await cli('bulk', 'pause', '--text', 'water')).toEqual({ code: 0, out: 'paused 4 of 4', err: '' });
    const again = await cli('bulk', 'pause', '--text', 'water', '--kind', 'every', '--json');
    expect(JSON.parse(again.out) as BulkResult).toEqual({
      action: 'pause',
      matched: 4,
      done: 0,
      skipped: [{ code: 'already_paused', count: 4, ids: ['sch_1', 'sch_2', 'sch_3', 'sch_4'] }],
    });
    expect((await cli('bulk', 'pause', '--all')).out).toBe('paused 1 of 5 (skipped: 4 already_paused: sch_1, sch_2, sch_3, sch_4)');
  });

  it('resumes listed tasks of one Session and names those it could not find', async () => {
    await cli('bulk', 'pause', '--session', 'garden');
    expect((await cli('bulk', 'resume', '--session', 'garden', '--id', 'sch_1', 'sch_3')).out).toBe(
      'resumed 1 of 2 (skipped: 1 schedule_not_found: sch_3)',
    );
    expect((await cli('bulk', 'resume', '--session', 'garden', '--id', 'sch_1', '--id', 'sch_2')).out).toBe(
      'resumed 1 of 2 (skipped: 1 not_paused: sch_1)',
    );
  });

  it('runs the selected tasks now; an ended one is skipped', async () => {
    await t.advance(60_000);
    expect((await cli('bulk', 'trigger', '--session', 'kitchen')).out).toBe('ran now 2 of 3 (skipped: 1 schedule_ended: sch_5)');
    expect((await cli('bulk', 'trigger', '--state', 'ended')).out).toBe('ran now 0 of 1 (skipped: 1 schedule_ended: sch_5)');
  });

  it.each([
    [[], 'Give the action'],
    [['stop', '--all'], 'Unknown action "stop"'],
    [['pause'], 'Choose tasks'],
    [['pause', '--id', 'sch_1'], '--id needs --session'],
    [['pause', '--session', 'garden', '--id', 'sch_1', '--state', 'paused'], 'not both'],
  ])('bulk %j is bad usage', async (argv, message) => {
    const r = await cli('bulk', ...argv);
    expect(r.code).toBe(2);
    expect(r.err).toContain(message);
  });

  it('prints the Host refusal of a bad filter or note with its code', async () => {
    expect(await cli('bulk', 'pause', '--state', 'sleeping')).toMatchObject({ code: 1, err: expect.stringMatching(/^invalid_selector: /) });
    expect(await cli('bulk', 'resume', '--all', '--note', 'why')).toMatchObject({
      code: 1,
      err: expect.stringMatching(/^invalid_selector: /),
    });
  });
});

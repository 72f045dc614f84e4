// The options every Host command takes (--url, --json) before or after the command name, against
// an in-process Host; a value after the name wins; any other option before the name, or --url
// without a value, is bad usage (exit 2) with a hint to the command list.
import { main } from '../../src/cli/main.ts';
import type { ScheduleView } from '../../src/index.ts';
import { startTestHost, type TestHost } from '../host/support.ts';

let t: TestHost;
beforeEach(async () => {
  t = await startTestHost();
});
afterEach(async () => {
  await t.close();
});

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (line) => out.push(line), err: (line) => err.push(line) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const TOP_HINT = 'Run `agent-schedule --help` for the commands.';
// Nothing listens on port 9 of loopback (discard).
const NO_HOST = 'http://127.0.0.1:9';

describe('global options', () => {
  it.each([
    ['before the command', (url: string) => ['--url', url, '--json', 'list', '--session', 'demo']],
    ['after the command', (url: string) => ['list', '--session', 'demo', '--url', url, '--json']],
    ['on both sides', (url: string) => ['--json', 'list', '--url', url, '--session', 'demo']],
    ['as --url=<url> before the command', (url: string) => [`--url=${url}`, 'list', '--session', 'demo', '--json']],
  ])('--url and --json %s', async (_where, argv) => {
    await run('create', '--session', 'demo', '--title', 'Tick', '--prompt', 'tick', '--every', '600', '--url', t.url);
    const r = await run(...argv(t.url));
    expect(r).toMatchObject({ code: 0, err: '' });
    expect((JSON.parse(r.out) as ScheduleView[]).map((v) => v.id)).toEqual(['sch_1']);
  });

  it('a --url after the command wins over one before it', async () => {
    expect((await run('--url', NO_HOST, 'catalog', '--url', t.url)).code).toBe(0);
    expect((await run('--url', t.url, 'catalog', '--url', NO_HOST)).err).toMatch(
      /^host_unreachable: No Host answers at http:\/\/127\.0\.0\.1:9 /,
    );
  });

  it('a command that does not take a global option refuses it wherever it is given', async () => {
    const r = await run('--url', t.url, 'preview', '--every', '600');
    expect(r).toEqual({ code: 2, out: '', err: 'Unknown option --url.\nRun `agent-schedule preview --help` for its options.' });
  });

  it.each([
    [
      ['--bogus', 'list', '--session', 'demo'],
      'Unknown option --bogus before the command; the options every command takes there are --url and --json.',
    ],
    [
      ['--session=demo', 'list'],
      'Unknown option --session before the command; the options every command takes there are --url and --json.',
    ],
    [['--url'], '--url needs a value, as in --url http://127.0.0.1:4319.'],
    [['--url', '--session', 'demo', 'list'], '--url needs a value, as in --url http://127.0.0.1:4319.'],
    [['--url', 'http://127.0.0.1:9'], 'Give a command: agent-schedule <command> [options].'],
  ])('%j is bad usage with a hint to the command list, exit 2', async (argv, line) => {
    expect(await run(...argv)).toEqual({ code: 2, out: '', err: `${line}\n${TOP_HINT}` });
  });

  it('an unknown option after the command is still refused by the command', async () => {
    const r = await run('--url', t.url, 'list', '--session', 'demo', '--bogus');
    expect(r).toEqual({ code: 2, out: '', err: 'Unknown option --bogus.\nRun `agent-schedule list --help` for its options.' });
  });

  it('with --json before the command a usage error is JSON on stdout', async () => {
    const r = await run('--json', '--bogus', 'list');
    expect(r.code).toBe(2);
    expect(JSON.parse(r.out)).toEqual({ code: 'usage_error', message: expect.stringContaining('Unknown option --bogus') });
  });

  it('--help and --version still work after a global option', async () => {
    expect((await run('--url', t.url, '--help')).out).toContain('--url and --json may come before or after the command.');
    expect((await run('--json', '--version')).out).toMatch(/^\{"version":/);
  });
});

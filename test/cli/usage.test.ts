// How the CLI reports what it cannot run: `--version`; a usage error as one line and a hint to
// `--help` (exit 2); malformed and negative numbers in the CLI's own words, not parseArgs' text;
// with `--json`, every failure as `{code, message}` on stdout with the same exit codes (0 ok,
// 1 refused, 2 usage), checked on the real process as well.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { COMMANDS, main } from '../../src/cli/main.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
// Nothing listens on port 9 of loopback (discard): Host commands that get past usage fail with host_unreachable.
const NO_HOST = ['--url', 'http://127.0.0.1:9'];

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (line) => out.push(line), err: (line) => err.push(line) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const spawnCli = (...argv: string[]) => spawnSync(process.execPath, ['bin/agent-schedule.js', ...argv], { cwd: root, encoding: 'utf8' });

describe('--version', () => {
  it("prints the package's version and exits 0", async () => {
    expect(await run('--version')).toEqual({ code: 0, out: version, err: '' });
    expect((await run('-V')).out).toBe(version);
    const real = spawnCli('--version');
    expect({ status: real.status, stdout: real.stdout, stderr: real.stderr }).toEqual({ status: 0, stdout: `${version}\n`, stderr: '' });
  });
});

describe('usage errors', () => {
  it.each([
    [['create', '--session', 'demo', '--bogus'], 'Unknown option --bogus.', 'create'],
    [['list'], '--session is required.', 'list'],
    [['history', '--session', 'demo', '--id'], '--id needs a value.', 'history'],
    [['catalog', '--json=yes'], '--json takes no value.', 'catalog'],
    [
      ['preview', '--cron', '* * * * *', '--tz', 'UTC', 'extra'],
      'Unexpected argument "extra": each value follows its option, as in --name value.',
      'preview',
    ],
    [['delete', '--session', 'demo', '--id', '--url'], '--id needs a value; to give one that starts with "-", write --id=--url.', 'delete'],
  ])('%j prints one line and a hint, exit 2', async (argv, line, command) => {
    const r = await run(...argv);
    expect(r).toEqual({ code: 2, out: '', err: `${line}\nRun \`agent-schedule ${command} --help\` for its options.` });
  });

  it('no command or an unknown one: one line and a hint to the command list', async () => {
    expect(await run()).toEqual({
      code: 2,
      out: '',
      err: 'Give a command: agent-schedule <command> [options].\nRun `agent-schedule --help` for the commands.',
    });
    expect(await run('frobnicate')).toEqual({
      code: 2,
      out: '',
      err: 'Unknown command "frobnicate".\nRun `agent-schedule --help` for the commands.',
    });
  });
});

describe('the command list', () => {
  it('loads each command by the name it is listed under; the help lists every one with its summary', async () => {
    const loaded = await Promise.all(COMMANDS.map((entry) => entry.load()));
    expect(loaded.map((c) => c.name)).toEqual(COMMANDS.map((entry) => entry.name));
    const help = (await run('--help')).out;
    for (const command of loaded) expect(help).toMatch(new RegExp(`^  ${command.name} +${command.summary.replace(/[()]/g, '\\$&')}$`, 'm'));
    expect((await run('help', 'drift')).out).toBe(loaded.find((c) => c.name === 'drift')?.help);
  });
});

describe('numbers', () => {
  it.each([
    [
      ['create', '--session', 'd', '--title', 'T', '--prompt', 'P', '--after', '-5'],
      '--after takes a whole number of seconds, such as --after 90; got "-5".',
    ],
    [
      ['create', '--session', 'd', '--title', 'T', '--prompt', 'P', '--after', '1.5'],
      '--after takes a whole number of seconds, such as --after 90; got "1.5".',
    ],
    [
      ['create', '--session', 'd', '--title', 'T', '--prompt', 'P', '--every', '1e3'],
      '--every takes a whole number of seconds, at least 60, such as --every 600; got "1e3".',
    ],
    [
      ['update', '--session', 'd', '--id', 'sch_1', '--every', '-60'],
      '--every takes a whole number of seconds, at least 60, such as --every 600; got "-60".',
    ],
    [['preview', '--every', '-5'], '--every takes a whole number of seconds, at least 60, such as --every 600; got "-5".'],
    [['preview', '--every', '60', '--count', 'abc'], '--count takes a whole number from 1 to 1000; got "abc".'],
    [['preview', '--every', '60', '--count', '-1'], '--count takes a whole number from 1 to 1000; got "-1".'],
    [
      ['history', '--session', 'd', '--id', 'sch_1', '--limit', '-1'],
      '--limit takes a whole number from 1 to 100, such as --limit 20; got "-1".',
    ],
    [['explain', '--id', 'sch_1', '--next', '0'], '--next takes a whole number from 1 to 100; got 0.'],
  ])('%j is refused in the CLI’s words, exit 2', async (argv, line) => {
    const r = await run(...argv, ...(argv[0] === 'preview' ? [] : NO_HOST));
    expect(r.code).toBe(2);
    expect(r.err.split('\n')[0]).toBe(line);
    expect(r.err).not.toMatch(/ambiguous|parseArgs|ERR_/);
  });
});

describe('--json errors', () => {
  it('a usage error is {code: "usage_error", message} on stdout, exit 2', async () => {
    const r = await run('create', '--after', '-5', '--session', 'd', '--title', 'T', '--prompt', 'P', '--json');
    expect(r.code).toBe(2);
    expect(r.err).toBe('');
    expect(JSON.parse(r.out)).toEqual({
      code: 'usage_error',
      message: '--after takes a whole number of seconds, such as --after 90; got "-5".',
    });
    expect(JSON.parse((await run('frobnicate', '--json')).out)).toEqual({ code: 'usage_error', message: 'Unknown command "frobnicate".' });
  });

  it('a refused value is {code, message} on stdout, exit 1', async () => {
    const r = await run('preview', '--cron', '0 0 * * MON', '--tz', 'UTC', '--json');
    expect(r.code).toBe(1);
    expect(r.err).toBe('');
    expect(JSON.parse(r.out)).toEqual({ code: 'invalid_rule', message: expect.any(String) });
  });

  it('the real process: no Host is exit 1 and a usage error exit 2, each one JSON object on stdout', () => {
    const unreachable = spawnCli('catalog', '--json', ...NO_HOST);
    expect(unreachable.status).toBe(1);
    expect(unreachable.stderr).toBe('');
    expect(JSON.parse(unreachable.stdout)).toEqual({
      code: 'host_unreachable',
      message: expect.stringMatching(/^No Host answers at http:\/\/127\.0\.0\.1:9/),
    });
    const usage = spawnCli('list', '--json');
    expect(usage.status).toBe(2);
    expect(usage.stderr).toBe('');
    expect(JSON.parse(usage.stdout)).toEqual({ code: 'usage_error', message: '--session is required.' });
    const ok = spawnCli('preview', '--every', '60', '--from', '2030-01-01T00:00:00Z', '--count', '1', '--json');
    expect(ok.status).toBe(0);
  });
});

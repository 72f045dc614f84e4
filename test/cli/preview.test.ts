// `agent-schedule preview`: JSON and table output for known rules, exit codes for rejected
// values (1, with the error code) and bad usage (2), help, and that the entry module runs main
// exactly once both when executed directly and through bin/agent-schedule.js.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (line) => out.push(line), err: (line) => err.push(line) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const FROM = ['--from', '2027-03-26T12:00:00Z'];

describe('preview --json', () => {
  it('cron "30 1 * * *" in Europe/London around the 2027-03-28 gap: instants, offsets and a gap note', async () => {
    const r = await run('preview', '--cron', '30 1 * * *', '--tz', 'Europe/London', ...FROM, '--count', '3', '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual([
      { at: '2027-03-27T01:30:00.000Z', local: '2027-03-27T01:30:00', offset: '+00:00', notes: [] },
      {
        at: '2027-03-29T00:30:00.000Z',
        local: '2027-03-29T01:30:00',
        offset: '+01:00',
        notes: ['01:30 does not exist on 2027-03-28 (the clock jumps forward from 01:00 to 02:00); skipped'],
      },
      { at: '2027-03-30T00:30:00.000Z', local: '2027-03-30T01:30:00', offset: '+01:00', notes: [] },
    ]);
  });

  it('cron "0 2 * * *" in Europe/London: 02:00 exists on 2027-03-28, only the offset changes', async () => {
    const r = await run('preview', '--cron', '0 2 * * *', '--tz', 'Europe/London', ...FROM, '--count', '3', '--json');
    const list = JSON.parse(r.out) as Array<{ at: string; offset: string; notes: string[] }>;
    expect(list.map((o) => [o.at, o.offset, o.notes])).toEqual([
      ['2027-03-27T02:00:00.000Z', '+00:00', []],
      ['2027-03-28T01:00:00.000Z', '+01:00', []],
      ['2027-03-29T01:00:00.000Z', '+01:00', []],
    ]);
  });

  it('daily 09:00 (CLI shorthand for 09:00:00), weekly with --weekdays, every in UTC', async () => {
    const daily = await run(
      'preview',
      '--daily',
      '09:00',
      '--tz',
      'Asia/Shanghai',
      '--from',
      '2030-01-01T08:00:00Z',
      '--count',
      '1',
      '--json',
    );
    expect(JSON.parse(daily.out)).toEqual([{ at: '2030-01-02T01:00:00.000Z', local: '2030-01-02T09:00:00', offset: '+08:00', notes: [] }]);
    const weekly = await run(
      'preview',
      '--weekly',
      '09:00:00',
      '--weekdays',
      '3,1',
      '--tz',
      'UTC',
      '--from',
      '2030-01-01T08:00:00Z',
      '--count',
      '3',
      '--json',
    );
    expect((JSON.parse(weekly.out) as Array<{ at: string }>).map((o) => o.at)).toEqual([
      '2030-01-02T09:00:00.000Z',
      '2030-01-07T09:00:00.000Z',
      '2030-01-09T09:00:00.000Z',
    ]);
    const every = await run('preview', '--every', '300', '--from', '2030-01-01T08:00:00Z', '--count', '2', '--json');
    expect((JSON.parse(every.out) as Array<{ at: string; offset: string }>).map((o) => `${o.at} ${o.offset}`)).toEqual([
      '2030-01-01T08:05:00.000Z +00:00',
      '2030-01-01T08:10:00.000Z +00:00',
    ]);
  });
});

describe('preview table', () => {
  it('cron "*/15 9-17 * * 1-5" in Asia/Shanghai: a title line and aligned columns', async () => {
    const r = await run(
      'preview',
      '--cron',
      '*/15 9-17 * * 1-5',
      '--tz',
      'Asia/Shanghai',
      '--from',
      '2030-01-01T08:00:00Z',
      '--count',
      '5',
    );
    expect(r.code).toBe(0);
    const lines = r.out.split('\n');
    expect(lines[0]).toBe('cron "*/15 9-17 * * 1-5" in Asia/Shanghai, after 2030-01-01T08:00:00.000Z:');
    expect(lines[1]).toBe('AT (UTC)                  LOCAL                OFFSET  NOTES');
    expect(lines.slice(2)).toEqual([
      '2030-01-01T08:15:00.000Z  2030-01-01T16:15:00  +08:00',
      '2030-01-01T08:30:00.000Z  2030-01-01T16:30:00  +08:00',
      '2030-01-01T08:45:00.000Z  2030-01-01T16:45:00  +08:00',
      '2030-01-01T09:00:00.000Z  2030-01-01T17:00:00  +08:00',
      '2030-01-01T09:15:00.000Z  2030-01-01T17:15:00  +08:00',
    ]);
  });

  it('notes go in the last column; a short list says the range ended', async () => {
    const gap = await run('preview', '--cron', '30 1 * * *', '--tz', 'Europe/London', ...FROM, '--count', '2');
    expect(gap.out).toContain('2027-03-29T00:30:00.000Z  2027-03-29T01:30:00  +01:00  01:30 does not exist on 2027-03-28');
    const end = await run('preview', '--daily', '12:00:00', '--tz', 'UTC', '--from', '9999-12-30T00:00:00Z', '--count', '5');
    expect(end.out.split('\n').slice(2)).toEqual([
      '9999-12-30T12:00:00.000Z  9999-12-30T12:00:00  +00:00',
      '9999-12-31T12:00:00.000Z  9999-12-31T12:00:00  +00:00',
      '(no further occurrences up to 9999-12-31T23:59:59.999Z)',
    ]);
  });
});

describe('exit codes', () => {
  it('a rejected value exits 1 and prints its error code and message', async () => {
    const cases: Array<[string[], string]> = [
      [['--cron', '0 0 * * MON', '--tz', 'UTC'], 'invalid_rule: '],
      [['--cron', '0 0 30 2 *', '--tz', 'UTC'], 'time_out_of_range: '],
      [['--daily', '25:00', '--tz', 'UTC'], 'invalid_rule: '],
      [['--weekly', '09:00', '--weekdays', '1,x', '--tz', 'UTC'], 'invalid_rule: '],
      [['--every', '30'], 'invalid_rule: '],
      [['--daily', '09:00:00', '--tz', 'EST'], 'invalid_time_zone: '],
      [['--daily', '09:00:00', '--tz', 'UTC', '--from', '2030-01-01T08:00:00'], 'invalid_selector: '],
    ];
    for (const [argv, prefix] of cases) {
      const r = await run('preview', ...argv, ...(argv.includes('--from') ? [] : FROM));
      expect(r.code, argv.join(' ')).toBe(1);
      expect(r.err.startsWith(prefix), r.err).toBe(true);
      expect(r.out).toBe('');
    }
  });

  it('bad usage exits 2 with one line and a hint to the help', async () => {
    const cases: string[][] = [
      ['preview', ...FROM],
      ['preview', '--cron', '* * * * *', '--every', '60', '--tz', 'UTC'],
      ['preview', '--cron', '* * * * *'],
      ['preview', '--cron', '* * * * *', '--tz', 'UTC', '--count', '0'],
      ['preview', '--cron', '* * * * *', '--tz', 'UTC', '--count', 'many'],
      ['preview', '--cron', '* * * * *', '--tz', 'UTC', '--color'],
      ['preview', '--cron', '* * * * *', '--tz', 'UTC', 'extra'],
      ['preview', '--weekly', '09:00:00', '--tz', 'UTC'],
      ['preview', '--daily', '09:00:00', '--weekdays', '1', '--tz', 'UTC'],
      ['preview', '--every', '60', '--tz', 'UTC'],
      ['preview', '--every', 'five'],
    ];
    for (const argv of cases) {
      const r = await run(...argv);
      expect(r.code, argv.join(' ')).toBe(2);
      const [line, hint, ...more] = r.err.split('\n');
      expect(line, argv.join(' ')).toMatch(/^\S.*\.$/);
      expect(hint).toBe('Run `agent-schedule preview --help` for its options.');
      expect(more).toEqual([]);
    }
  });

  it('no command or an unknown command exits 2 with a hint to the command list', async () => {
    for (const argv of [[], ['frobnicate']]) {
      const r = await run(...argv);
      expect(r.code).toBe(2);
      expect(r.err.split('\n')[1]).toBe('Run `agent-schedule --help` for the commands.');
    }
  });

  it('--help exits 0 and documents the HH:mm convenience', async () => {
    const top = await run('--help');
    expect(top.code).toBe(0);
    expect(top.out).toContain('Usage: agent-schedule <command>');
    const own = await run('preview', '--help');
    expect(own.code).toBe(0);
    expect(own.out).toContain('HH:mm');
    expect((await run('help', 'preview')).out).toBe(own.out);
  });
});

describe('entry points', () => {
  const args = ['preview', '--every', '60', '--from', '2030-01-01T00:00:00Z', '--count', '1', '--json'];
  const expected = [{ at: '2030-01-01T00:01:00.000Z', local: '2030-01-01T00:01:00', offset: '+00:00', notes: [] }];

  it('src/cli/bin.ts, the installed command, runs main once', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/bin.ts', ...args], { cwd: root, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(expected);
  });

  it('bin/agent-schedule.js runs main once and passes on the exit code', () => {
    const r = spawnSync(process.execPath, ['bin/agent-schedule.js', ...args], { cwd: root, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(expected);
    const usage = spawnSync(process.execPath, ['bin/agent-schedule.js', 'preview'], { cwd: root, encoding: 'utf8' });
    expect(usage.status).toBe(2);
  });
});

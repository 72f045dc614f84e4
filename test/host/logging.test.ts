// The Host's structured log: `npm start`'s Host (host/main.ts) in test-clock mode writes one JSON
// line per event on stdout — its start, the periodic delivery summary, each failed attempt with its
// stage and a one-line cause, its stop — and the library logger of host/logger.ts keeps stacks
// for `debug`, honours LOG_LEVEL and prints readable lines with LOG_FORMAT=pretty.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createHostLog, libraryLogger, logSettingsFromEnv, prettyLine } from '../../host/logger.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

type LogLine = Record<string, unknown> & { level: string; time: string; msg: string };

const SUMMARY = 'Reminder deliveries since the last summary.';

/** The Host as a child process whose stdout is read line by line as JSON. */
function startHost(dataDir: string, env: Record<string, string> = {}) {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'host/main.ts'], {
    cwd: root,
    env: { ...process.env, PORT: '0', HOST: '', DATA_DIR: dataDir, SCHEDULE_TEST_CLOCK: '2030-01-07T08:00:00Z', LOG_FORMAT: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let buffered = '';
  let stderr = '';
  const raw: string[] = [];
  const waiters = new Set<() => void>();
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    const parts = buffered.split('\n');
    buffered = parts.pop() ?? '';
    raw.push(...parts);
    for (const waiter of [...waiters]) waiter();
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const lines = (): LogLine[] => raw.map((line) => JSON.parse(line) as LogLine);
  const waitFor = (test: (line: LogLine) => boolean) =>
    new Promise<LogLine>((found, failed) => {
      const check = () => {
        const hit = lines().find(test);
        if (hit !== undefined) {
          waiters.delete(check);
          found(hit);
        } else if (child.exitCode !== null) {
          waiters.delete(check);
          failed(new Error(`the Host exited:\n${raw.join('\n')}\n${stderr}`));
        }
      };
      waiters.add(check);
      void exited.then(check);
      check();
    });
  return { child, raw, lines, waitFor, exited, stderr: () => stderr };
}

async function api(url: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${url}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return response.json();
}

describe('the Host log (host/main.ts)', () => {
  it('writes one JSON line per event: start, failed attempt with stage and cause, delivery summary, stop', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'agent-schedule-log-'));
    // A Session whose transcript is damaged: restoring it fails, so its reminder's attempts fail.
    await mkdir(join(dataDir, 'sessions'), { recursive: true });
    await writeFile(join(dataDir, 'sessions', 'broken.jsonl'), 'this is not a transcript line\n');
    const host = startHost(dataDir);
    try {
      const started = await host.waitFor((line) => line.msg.startsWith('agent-schedule Host listening on'));
      const url = String(started.url);
      expect(started).toMatchObject({ level: 'info', dataDir, testClock: '2030-01-07T08:00:00Z' });
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

      await api(url, 'POST', '/api/sessions/demo/tools/schedule_create', { title: 'Tea', prompt: 'Make tea.', after_seconds: 60 });
      const bad = (await api(url, 'POST', '/api/sessions/broken/tools/schedule_create', {
        title: 'Stretch',
        prompt: 'Stand up.',
        after_seconds: 60,
      })) as { id: string };
      await api(url, 'POST', '/api/test/clock', { advanceMs: 90_000 });

      const failed = await host.waitFor((line) => line.level === 'warn' && line.sessionId === 'broken');
      expect(failed).toMatchObject({
        stage: 'resolve',
        taskId: bad.id,
        attempt: 1,
        nextRetryAt: expect.any(String),
        cause: expect.any(String),
      });
      // A cause is one short line; the stack is kept for LOG_LEVEL=debug.
      expect(String(failed.cause)).not.toContain('\n');
      expect(failed).not.toHaveProperty('causeStack');

      host.child.kill('SIGTERM');
      expect(await host.exited).toBe(0);
      const all = host.lines();
      expect(all.filter((line) => line.msg === 'SIGTERM: shutting down')).toHaveLength(1);
      expect(all.at(-1)).toMatchObject({ level: 'info', msg: 'stopped', signal: 'SIGTERM' });
      // At info a delivery shows only in the periodic summary (each one alone is a debug line); the
      // close flushes what no summary told yet, so every delivery and failed attempt is in one.
      const summaries = all.filter((line) => line.msg === SUMMARY);
      expect(summaries.reduce((n, line) => n + Number(line.delivered), 0)).toBe(1);
      expect(summaries.reduce((n, line) => n + Number(line.failedAttempts), 0)).toBe(
        all.filter((line) => line.level === 'warn' && line.sessionId === 'broken').length,
      );
      // The test clock fires the timer as it passes the occurrence: delivered on time.
      expect(summaries.find((line) => line.delivered === 1)).toMatchObject({ level: 'info', latenessP50Ms: 0, latenessP99Ms: 0 });
      expect(all.some((line) => line.msg === 'Reminder delivered.')).toBe(false);
      // Every line is one JSON object with a level, an RFC 3339 time and a message.
      for (const line of all) {
        expect(typeof line.level).toBe('string');
        expect(line.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
        expect(typeof line.msg).toBe('string');
      }
      expect(host.stderr()).toBe('');
    } finally {
      if (host.child.exitCode === null) host.child.kill('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses a malformed LOG_LEVEL with exit 2, naming the variable', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'agent-schedule-log-'));
    const host = startHost(dataDir, { LOG_LEVEL: 'loud' });
    try {
      expect(await host.exited).toBe(2);
      expect(host.stderr()).toMatch(/^LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent; got "loud"\./);
    } finally {
      if (host.child.exitCode === null) host.child.kill('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the library logger of the Host', () => {
  const collect = (env: NodeJS.ProcessEnv) => {
    const written: string[] = [];
    const logger = libraryLogger(createHostLog(logSettingsFromEnv(env), { write: (text) => written.push(text) }));
    return { logger, written };
  };
  const cause = new Error('EACCES: permission denied\n    at somewhere (file.js:1:1)');

  it('logs a failed attempt at warn with its Session, task, stage, next retry and a one-line cause', () => {
    const { logger, written } = collect({});
    logger.warn('A delivery attempt failed; the reminders stay active.', {
      sessionId: 's1',
      taskIds: ['sch_4'],
      stage: 'followup',
      attempt: 2,
      nextRetryAt: '2030-01-07T08:01:15.000Z',
      cause,
    });
    logger.debug('not shown at info');
    expect(written).toHaveLength(1);
    const line = JSON.parse(written[0] ?? '') as Record<string, unknown>;
    expect(line).toEqual({
      level: 'warn',
      time: expect.stringMatching(/Z$/),
      msg: 'A delivery attempt failed; the reminders stay active.',
      stage: 'followup',
      sessionId: 's1',
      taskId: 'sch_4',
      attempt: 2,
      nextRetryAt: '2030-01-07T08:01:15.000Z',
      cause: 'Error: EACCES: permission denied',
    });
  });

  it('names the stage of a failed save, adds the stack at LOG_LEVEL=debug, and says nothing below LOG_LEVEL', () => {
    const debug = collect({ LOG_LEVEL: 'debug' });
    debug.logger.error('A schedule change could not be saved.', { operation: 'delivery.commit', cause });
    expect(JSON.parse(debug.written[0] ?? '')).toMatchObject({ stage: 'commit', causeStack: cause.stack });
    debug.logger.warn('A delivery attempt failed; the reminders stay active.', { taskIds: ['a', 'b'], stage: 'flush', cause });
    expect(JSON.parse(debug.written[1] ?? '')).toMatchObject({ stage: 'flush', taskIds: ['a', 'b'], causeStack: cause.stack });
    const quiet = collect({ LOG_LEVEL: 'error' });
    quiet.logger.debug('Reminder delivered.', { sessionId: 's', taskId: 'sch_1' });
    quiet.logger.warn('a warning');
    expect(quiet.written).toEqual([]);
  });

  it('prints one readable line per event with LOG_FORMAT=pretty', () => {
    const { logger, written } = collect({ LOG_FORMAT: 'pretty', LOG_LEVEL: 'debug' });
    logger.debug('Reminder delivered.', {
      sessionId: 'demo',
      taskId: 'sch_1',
      occurrence: Date.UTC(2030, 0, 7, 8, 1),
      deliveredAt: Date.UTC(2030, 0, 7, 8, 1, 2),
    });
    expect(written).toHaveLength(1);
    expect(written[0]).toMatch(
      /^\d{2}:\d{2}:\d{2}\.\d{3} DEBUG Reminder delivered\. sessionId=demo taskId=sch_1 occurrence=2030-01-07T08:01:00\.000Z deliveredAt=2030-01-07T08:01:02\.000Z latenessMs=2000\n$/,
    );
    expect(prettyLine('not json')).toBe('not json');
  });
});

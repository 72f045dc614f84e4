// `npm start` as a user runs it: the npm process starts the Host, and SIGTERM or SIGINT sent to
// npm (not to the Host) stops everything — the port closes and no process npm started is left
// running, re-parented to pid 1. Descendants are found by walking /proc (Linux).
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** The parent pid of a live process, or undefined once it is gone (or a zombie). */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // pid (comm) state ppid …; comm may hold spaces and parentheses, so read after the last ')'.
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return state === 'Z' || ppid === undefined ? undefined : Number(ppid);
  } catch {
    return undefined;
  }
}

/** Every live descendant of `pid`. */
function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const parent = parentOf(Number(name));
    if (parent !== undefined) parents.set(Number(name), parent);
  }
  const found: number[] = [];
  const walk = (of: number) => {
    for (const [child, parent] of parents) {
      if (parent === of && !found.includes(child)) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return found;
}

/** Whether something accepts connections on the port. */
const listening = (port: number) =>
  new Promise<boolean>((answer) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      answer(true);
    });
    socket.once('error', () => answer(false));
  });

describe.skipIf(!existsSync('/proc/self/stat'))('npm start', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`stops the Host and every process it started when npm gets ${signal}`, { timeout: 60_000 }, async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'agent-schedule-npm-start-'));
      const child = spawn(npm, ['start'], {
        cwd: root,
        env: { ...process.env, PORT: '0', HOST: '', DATA_DIR: dataDir, SCHEDULE_TEST_CLOCK: '', LOG_LEVEL: '', LOG_FORMAT: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.setEncoding('utf8');
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
      });
      const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
      let started: number[] = [];
      // Runs even when the test times out: nothing it started outlives it.
      onTestFinished(async () => {
        if (child.exitCode === null) child.kill('SIGKILL');
        for (const pid of started) {
          try {
            if (parentOf(pid) !== undefined) process.kill(pid, 'SIGKILL');
          } catch {}
        }
        await rm(dataDir, { recursive: true, force: true });
      });
      const port = await new Promise<number>((found, failed) => {
        child.stdout.on('data', (chunk: string) => {
          out += chunk;
          const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
          if (match?.[1] !== undefined) found(Number(match[1]));
        });
        child.on('exit', () => failed(new Error(`npm start exited early:\n${out}`)));
      });
      started = descendants(child.pid ?? -1);
      expect(started.length).toBeGreaterThan(0);
      expect(await listening(port)).toBe(true);

      child.kill(signal);
      await exited;
      // npm waits for its script, and the Host closes its port before it exits.
      expect(await listening(port)).toBe(false);
      expect({ survivors: started.filter((pid) => parentOf(pid) !== undefined) }, out).toEqual({ survivors: [] });
      expect(out).toContain(`${signal}: shutting down`);
      expect(out).toContain('stopped');
    });
  }
});

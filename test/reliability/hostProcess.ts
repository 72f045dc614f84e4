// The reference Host as a real child process (`node --import tsx host/main.ts`, as `npm start`
// runs it) on a temp data folder and a free port, in test-clock mode unless told otherwise: its
// URL once it listens, its output, its exit, and a few API helpers. Used by the shutdown checks
// and the stalled-reader measurement, which need a process of their own (signals, peak RSS).
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** A running Host child. */
export interface HostProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** Resolves once `pattern` appears in its output. */
  waitForOutput(pattern: RegExp): Promise<void>;
  /** Its exit: the code, or null when a signal ended it. */
  readonly exited: Promise<number | null>;
  /** Sends a JSON request; answers the status and the parsed body. */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  /** Its peak resident set so far in MiB (Linux `VmHWM`), or undefined where /proc has none. */
  peakRssMiB(): number | undefined;
  /** Its current resident set in MiB (Linux `VmRSS`). */
  rssMiB(): number | undefined;
  /** SIGKILLs it if it still runs. */
  kill(): void;
}

export interface HostProcessOptions {
  readonly dataDir: string;
  /** Extra environment (PORT, HOST and DATA_DIR are set; SCHEDULE_TEST_CLOCK defaults to 2030-01-07T08:00:00Z). */
  readonly env?: Record<string, string>;
}

function statusField(pid: number | undefined, field: string): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] === undefined ? undefined : Number(match[1]) / 1024;
  } catch {
    return undefined;
  }
}

/** Starts the Host child and resolves once it prints the URL it listens on. */
export async function startHostProcess(options: HostProcessOptions): Promise<HostProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'host/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      SCHEDULE_TEST_CLOCK: '2030-01-07T08:00:00Z',
      ...options.env,
      PORT: '0',
      HOST: options.env?.HOST ?? '',
      DATA_DIR: options.dataDir,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const waiters = new Set<() => void>();
  const take = (chunk: string) => {
    out += chunk;
    for (const waiter of [...waiters]) waiter();
  };
  child.stdout?.setEncoding('utf8').on('data', take);
  child.stderr?.setEncoding('utf8').on('data', take);
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  let gone = false;
  void exited.then(() => {
    gone = true;
    for (const waiter of [...waiters]) waiter();
  });
  const waitForOutput = (pattern: RegExp) =>
    new Promise<void>((found, failed) => {
      const check = () => {
        if (pattern.test(out)) {
          waiters.delete(check);
          found();
        } else if (gone) {
          waiters.delete(check);
          failed(new Error(`the Host exited before printing ${pattern}:\n${out}`));
        }
      };
      waiters.add(check);
      check();
    });
  try {
    await waitForOutput(/listening on http:\/\/[^\s]+/);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  const url = /listening on (http:\/\/[^\s]+)/.exec(out)?.[1] ?? '';
  return {
    url,
    child,
    output: () => out,
    waitForOutput,
    exited,
    async api(method, path, body) {
      const response = await fetch(`${url}${path}`, {
        method,
        ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: keep the text
      }
      return { status: response.status, body: parsed };
    },
    peakRssMiB: () => statusField(child.pid, 'VmHWM'),
    rssMiB: () => statusField(child.pid, 'VmRSS'),
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** Resolves with the exit code, or with `'timeout'` when the child has not exited after `ms`. */
export async function exitWithin(host: HostProcess, ms: number): Promise<number | null | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'timeout'>((done) => {
    timer = setTimeout(() => done('timeout'), ms);
  });
  try {
    return await Promise.race([host.exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

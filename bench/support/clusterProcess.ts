// The parent's side of a cluster benchmark Host process (clusterChild.ts): starts it, sends it
// commands and awaits their answers, hears its events, and SIGKILLs it.
import { type ChildProcess, spawn } from 'node:child_process';
import { extname } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { ClusterChildOptions } from './clusterChild.ts';
import { runnable } from './compiled.ts';

/** Warnings and errors of every Host process of this run, by level and message, with how often each came. */
export const logCounts = new Map<string, number>();

/** The counts logged since `since` (a copy of `logCounts` taken earlier), as `message ×n` lines. */
export function loggedSince(since: ReadonlyMap<string, number>): string[] {
  return [...logCounts].flatMap(([key, n]) => (n > (since.get(key) ?? 0) ? [`${key} ×${n - (since.get(key) ?? 0)}`] : []));
}

const self = fileURLToPath(import.meta.url);
/** The child beside this file, compiled or not as this file is (support/compiled.ts). */
const childPath = fileURLToPath(new URL(`./clusterChild${extname(self)}`, import.meta.url));

/** An event line of the child: `ready`, `delivered`, `log`. */
export type ChildEvent = { readonly e: string } & Record<string, unknown>;

export interface HostChild {
  readonly hostId: string;
  readonly child: ChildProcess;
  /** Sends a command and resolves with its answer (rejects with the child's error, or when it exits). */
  send<T = Record<string, unknown>>(cmd: string, args?: Record<string, unknown>): Promise<T>;
  /** Called for every event line. */
  onEvent(listener: (event: ChildEvent) => void): void;
  /** Warnings and errors it logged (the first 50). */
  readonly logs: ChildEvent[];
  readonly exited: Promise<void>;
  kill(): void;
}

/** Starts a Host process and resolves once it is ready to take commands. */
export async function startHostChild(options: ClusterChildOptions): Promise<HostChild> {
  // CLUSTER_BENCH_NODE_ARGS: more node flags for every Host process (say, `--cpu-prof --cpu-prof-dir=…`).
  const extra = (process.env.CLUSTER_BENCH_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
  const child = spawn(process.execPath, [...extra, ...runnable(childPath), JSON.stringify(options)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const waiting = new Map<number, { resolve: (v: never) => void; reject: (e: Error) => void }>();
  const listeners: ((event: ChildEvent) => void)[] = [];
  const logs: ChildEvent[] = [];
  let nextId = 1;
  let gone = false;
  let readyNow: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    readyNow = resolve;
  });
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      gone = true;
      for (const w of waiting.values()) w.reject(new Error(`host ${options.hostId} exited`));
      waiting.clear();
      resolve();
    }),
  );
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const message = JSON.parse(line) as { id?: number; result?: unknown; error?: string; e?: string };
    if (message.id !== undefined) {
      const w = waiting.get(message.id);
      waiting.delete(message.id);
      if (message.error !== undefined) w?.reject(new Error(`host ${options.hostId}: ${message.error}`));
      else w?.resolve(message.result as never);
      return;
    }
    const event = message as ChildEvent;
    if (event.e === 'ready') readyNow();
    if (event.e === 'log') {
      if (logs.length < 50) logs.push(event);
      const key = `${event.level}: ${event.msg}`;
      logCounts.set(key, (logCounts.get(key) ?? 0) + 1);
      // CLUSTER_BENCH_LOGS=1: every warning and error of the Hosts on stderr as it comes.
      if (process.env.CLUSTER_BENCH_LOGS === '1') console.error(`[${options.hostId}] ${event.level}: ${event.msg} ${event.data ?? ''}`);
    }
    for (const listener of listeners) listener(event);
  });
  await Promise.race([ready, exited.then(() => Promise.reject(new Error(`host ${options.hostId} exited before it was ready`)))]);
  return {
    hostId: options.hostId,
    child,
    logs,
    exited,
    send: (cmd, args = {}) =>
      new Promise((resolve, reject) => {
        if (gone) {
          reject(new Error(`host ${options.hostId} has exited`));
          return;
        }
        const id = nextId++;
        waiting.set(id, { resolve: resolve as (v: never) => void, reject });
        child.stdin!.write(`${JSON.stringify({ id, cmd, ...args })}\n`);
      }),
    onEvent: (listener) => listeners.push(listener),
    kill: () => {
      if (!gone) child.kill('SIGKILL');
    },
  };
}

/** Closes the Host cleanly when it still runs (or kills it after `ms`). */
export async function closeHostChild(host: HostChild, ms = 15_000): Promise<void> {
  const timer = setTimeout(() => host.kill(), ms);
  try {
    await host.send('close').catch(() => undefined);
    await host.exited;
  } finally {
    clearTimeout(timer);
  }
}

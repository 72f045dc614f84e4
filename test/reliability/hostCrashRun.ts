// One life of the crash trials' child (hostCrashChild.ts): spawn it on the data folder, read its
// JSON lines as they come, and SIGKILL it according to the trial's plan — a random moment while
// it starts or runs, or the instant it announces the n-th step of a chosen kind (inside a Session
// flush, between a flush and the row write, inside a write, after a write before its
// acknowledgement). Resolves with everything the child reported before it died — or, for a child
// refused at open (another child owns the domain), with its refusal once it exits.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { type AcceleratedClockAnchor, realNow } from './acceleratedClock.ts';
import type { HostCrashChildOptions } from './hostCrashChild.ts';
import type { ProbePoint } from './hostCrashProbe.ts';
import type { WorkloadOp } from './hostCrashWorkload.ts';
import { readJsonLines } from './jsonLines.ts';

const CHILD = join(import.meta.dirname, 'hostCrashChild.ts');

/** The exit code of a child whose domain could not be opened (it printed `refused`). */
export const REFUSED_EXIT = 5;
const ROOT = join(import.meta.dirname, '..', '..');

/** When to kill: `afterMs` after the spawn, `afterMs` after `ready`, or at the `n`-th `point`. */
export type KillPlan =
  | { readonly kind: 'startup'; readonly afterMs: number }
  | { readonly kind: 'random'; readonly afterMs: number }
  | { readonly kind: 'point'; readonly point: ProbePoint; readonly n: number; readonly fallbackMs: number };

/** Where a kill fell, as the figures name it. */
export type KillPhase = 'while starting' | 'at a random moment' | ProbePhase;
type ProbePhase = 'inside a Session flush' | 'between a flush and the row write' | 'inside a write' | 'after a write, before its ack';

const PHASE_OF: Readonly<Record<ProbePoint, ProbePhase>> = {
  flushing: 'inside a Session flush',
  flushed: 'between a flush and the row write',
  committing: 'inside a write',
  committed: 'after a write, before its ack',
};

/** One message the child appended to a Session. */
export interface SeenFollowup {
  readonly sessionId: string;
  readonly keys: readonly string[];
  readonly messageId: string;
}

/** What the child reported before it died. */
export interface ChildRun {
  anchor: AcceleratedClockAnchor | null;
  ready: boolean;
  readonly attempts: Map<number, WorkloadOp>;
  readonly acks: Map<number, unknown>;
  readonly followups: SeenFollowup[];
  /** Messages the service logged as errors. */
  readonly errors: string[];
  /** Why the child could not open the domain, when it could not. */
  refused: { readonly name: string; readonly code: string; readonly message: string } | null;
  /** Real instant (see `realNow`) the kill was sent. */
  killedAt: number;
  phase: KillPhase;
}

interface ChildEvent {
  readonly e: string;
  readonly n?: number;
  readonly [key: string]: unknown;
}

/** Hooks for children started together: told when the open settled, and a gate for the kill timers. */
export interface ChildHooks {
  /** Called once the child reports `ready` or `refused`. */
  readonly onOpen?: () => void;
  /** The kill timers counted from `ready` start only once this settles. */
  readonly armAfter?: Promise<unknown>;
}

/** Runs the child until the plan kills it (or it is refused at open); rejects when it ends any other way. */
export function runChild(options: HostCrashChildOptions, plan: KillPlan, hooks: ChildHooks = {}): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, JSON.stringify(options)], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const run: ChildRun = {
      anchor: null,
      ready: false,
      attempts: new Map(),
      acks: new Map(),
      followups: [],
      errors: [],
      refused: null,
      killedAt: 0,
      phase: 'while starting',
    };
    const timers: Array<ReturnType<typeof setTimeout>> = [];
    let killed = false;
    const kill = (phase: KillPhase) => {
      if (killed) return;
      killed = true;
      run.killedAt = realNow();
      run.phase = phase;
      child.kill('SIGKILL');
    };
    let closed = false;
    const later = (ms: number, phase: KillPhase) => {
      if (!closed) timers.push(setTimeout(() => kill(run.ready ? phase : 'while starting'), ms));
    };
    if (plan.kind === 'startup') later(plan.afterMs, 'at a random moment');

    const onEvent = (event: ChildEvent) => {
      switch (event.e) {
        case 'clock':
          run.anchor = event as unknown as AcceleratedClockAnchor;
          return;
        case 'ready': {
          run.ready = true;
          hooks.onOpen?.();
          const arm = () => {
            if (plan.kind === 'random') later(plan.afterMs, 'at a random moment');
            if (plan.kind === 'point') later(plan.fallbackMs, 'at a random moment');
          };
          if (hooks.armAfter === undefined) arm();
          else void hooks.armAfter.then(arm);
          return;
        }
        case 'attempt':
          run.attempts.set(event.n ?? 0, event.op as WorkloadOp);
          return;
        case 'ack':
          run.acks.set(event.n ?? 0, event.result);
          return;
        case 'followup':
          run.followups.push(event as unknown as SeenFollowup);
          return;
        case 'refused':
          run.refused = { name: String(event.name), code: String(event.code), message: String(event.message) };
          hooks.onOpen?.();
          return;
        case 'log':
          if (event.level === 'error') run.errors.push(`${String(event.msg)} ${String(event.data ?? '')}`);
          return;
      }
      if (plan.kind === 'point' && event.e === plan.point && event.n === plan.n) kill(PHASE_OF[plan.point]);
    };

    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
    });
    readJsonLines<ChildEvent>(child.stdout, onEvent, (line) => run.errors.push(`unexpected output: ${line.slice(0, 200)}`));
    child.on('error', (error) => {
      kill('at a random moment');
      reject(error);
    });
    child.on('close', (code, signal) => {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      if (signal === 'SIGKILL' && killed) resolve(run);
      else if (code === REFUSED_EXIT && run.refused !== null) resolve(run);
      else reject(new Error(`the crash-trial child ended without being killed (code ${code}, signal ${signal}): ${stderr.slice(-2000)}`));
    });
  });
}

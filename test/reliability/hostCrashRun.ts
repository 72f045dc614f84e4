// One life of the crash trials' child (hostCrashChild.ts): spawn it on the data folder, read its
// JSON lines as they come, and SIGKILL it according to the trial's plan — a random moment while
// it starts or runs, or the instant it announces the n-th step of a chosen kind (inside a Session
// flush, between a flush and the row write, inside a write, after a write before its
// acknowledgement). Resolves with everything the child reported before it died.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { type AcceleratedClockAnchor, realNow } from './acceleratedClock.ts';
import type { HostCrashChildOptions } from './hostCrashChild.ts';
import type { ProbePoint } from './hostCrashProbe.ts';
import type { WorkloadOp } from './hostCrashWorkload.ts';

const CHILD = join(import.meta.dirname, 'hostCrashChild.ts');
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
  /** Real instant (see `realNow`) the kill was sent. */
  killedAt: number;
  phase: KillPhase;
}

interface ChildEvent {
  readonly e: string;
  readonly n?: number;
  readonly [key: string]: unknown;
}

/** Runs the child until the plan kills it; rejects when it ends any other way. */
export function runChild(options: HostCrashChildOptions, plan: KillPlan): Promise<ChildRun> {
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
    const later = (ms: number, phase: KillPhase) => timers.push(setTimeout(() => kill(run.ready ? phase : 'while starting'), ms));
    if (plan.kind === 'startup') later(plan.afterMs, 'at a random moment');

    const onEvent = (event: ChildEvent) => {
      switch (event.e) {
        case 'clock':
          run.anchor = event as unknown as AcceleratedClockAnchor;
          return;
        case 'ready':
          run.ready = true;
          if (plan.kind === 'random') later(plan.afterMs, 'at a random moment');
          if (plan.kind === 'point') later(plan.fallbackMs, 'at a random moment');
          return;
        case 'attempt':
          run.attempts.set(event.n ?? 0, event.op as WorkloadOp);
          return;
        case 'ack':
          run.acks.set(event.n ?? 0, event.result);
          return;
        case 'followup':
          run.followups.push(event as unknown as SeenFollowup);
          return;
        case 'log':
          if (event.level === 'error') run.errors.push(`${String(event.msg)} ${String(event.data ?? '')}`);
          return;
      }
      if (plan.kind === 'point' && event.e === plan.point && event.n === plan.n) kill(PHASE_OF[plan.point]);
    };

    let buffered = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        let event: ChildEvent;
        try {
          event = JSON.parse(line) as ChildEvent;
        } catch {
          run.errors.push(`unexpected output: ${line.slice(0, 200)}`);
          continue;
        }
        onEvent(event);
      }
    });
    child.on('error', (error) => {
      kill('at a random moment');
      reject(error);
    });
    child.on('close', (code, signal) => {
      for (const timer of timers) clearTimeout(timer);
      if (signal === 'SIGKILL' && killed) resolve(run);
      else reject(new Error(`the crash-trial child ended without being killed (code ${code}, signal ${signal}): ${stderr.slice(-2000)}`));
    });
  });
}

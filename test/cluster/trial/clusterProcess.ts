// The parent's side of one cluster trial Host (clusterChild.ts): spawns it, sends it calls, and
// keeps what it reports — calls attempted and acknowledged, reminders it followed up, the shards
// it holds — so the trial can kill it (SIGKILL), stop and continue it (SIGSTOP, SIGCONT) at the
// moments its plan names and check afterwards what each Host did.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';
import { readJsonLines } from '../../reliability/jsonLines.ts';
import type { ClusterCall, ClusterChildOptions } from './clusterChild.ts';

const CHILD = join(import.meta.dirname, 'clusterChild.ts');
const ROOT = join(import.meta.dirname, '..', '..', '..');

/** One event line of the child. */
export interface ChildEvent {
  readonly e: string;
  readonly n?: number;
  readonly [key: string]: unknown;
}

/** A reminder the Host followed up into a Session (`at`: the Host's wall clock then, as the database's). */
export interface FollowupSeen {
  readonly hostId: string;
  readonly sessionId: string;
  readonly keys: readonly string[];
  /** The message id the Session answered (an earlier message's for a dropped redelivery). */
  readonly messageId: string;
  readonly at: number;
}

/** A running Host of the trial. */
export class ClusterHostProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly acks = new Map<number, unknown>();
  readonly followups: FollowupSeen[] = [];
  readonly errors: string[] = [];
  readonly warnings = new Map<string, number>();
  held = 0;
  /** The longest stall of the child's event loop reported, ms. */
  maxStallMs = 0;
  /** Shards this Host gave up and then held again at the same epoch (parent's clock). */
  readonly retaken: Array<{ shard: number; epoch: number; at: number }> = [];
  /** The most queries the child's pool had waiting for a connection at once. */
  maxWaiting = 0;
  /** Set once the process ended (killed or otherwise). */
  exited = false;
  /** Set when the trial killed it on purpose. */
  killed = false;
  private stderr = '';
  private readonly waiters: Array<{ test: (event: ChildEvent) => boolean; resolve: (event: ChildEvent) => void }> = [];
  private readonly pending = new Map<number, (result: unknown) => void>();
  readonly ready: Promise<void>;
  readonly ended: Promise<void>;

  constructor(readonly options: ClusterChildOptions) {
    this.child = spawn(process.execPath, ['--import', 'tsx', CHILD, JSON.stringify(options)], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdin.on('error', () => undefined);
    this.ready = this.next((event) => event.e === 'ready').then(() => undefined);
    this.ended = new Promise((resolve) => {
      this.child.on('close', () => {
        this.exited = true;
        for (const resolveCall of this.pending.values()) resolveCall(undefined);
        this.pending.clear();
        resolve();
      });
    });
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-4000);
    });
    readJsonLines<ChildEvent>(
      this.child.stdout,
      (event) => this.onEvent(event),
      (line) => this.errors.push(`unexpected output: ${line.slice(0, 200)}`),
    );
  }

  get hostId(): string {
    return this.options.hostId;
  }

  /** The end of what the child wrote on stderr (for a failure report). */
  get stderrTail(): string {
    return this.stderr;
  }

  private onEvent(event: ChildEvent): void {
    switch (event.e) {
      case 'ack':
        this.acks.set(event.n ?? 0, event.result);
        this.pending.get(event.n ?? 0)?.(event.result);
        this.pending.delete(event.n ?? 0);
        break;
      case 'followup':
        this.followups.push({
          hostId: this.hostId,
          sessionId: String(event.sessionId),
          keys: event.keys as string[],
          messageId: String(event.messageId),
          at: Number(event.at),
        });
        break;
      case 'retaken':
        this.retaken.push({ shard: Number(event.shard), epoch: Number(event.epoch), at: Date.now() });
        break;
      case 'waiting':
        this.maxWaiting = Math.max(this.maxWaiting, Number(event.count));
        break;
      case 'stall':
        this.maxStallMs = Math.max(this.maxStallMs, Number(event.ms));
        break;
      case 'held':
        this.held = Number(event.count);
        break;
      case 'log':
        if (event.level === 'error') this.errors.push(`${String(event.msg)} ${String(event.data ?? '')}`);
        else this.warnings.set(String(event.msg), (this.warnings.get(String(event.msg)) ?? 0) + 1);
        break;
    }
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const waiter = this.waiters[i];
      if (waiter?.test(event)) {
        this.waiters.splice(i, 1);
        waiter.resolve(event);
      }
    }
  }

  /** The next event passing `test`. */
  next(test: (event: ChildEvent) => boolean): Promise<ChildEvent> {
    return new Promise((resolve) => this.waiters.push({ test, resolve }));
  }

  /** Sends a call; resolves with its answer, or undefined if the process ended first. */
  call(call: ClusterCall): Promise<unknown> {
    if (this.exited) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.pending.set(call.n, resolve);
      this.child.stdin.write(`${JSON.stringify(call)}\n`);
    });
  }

  /** Asks the Host to hold its next flush before the commit (it reports `holding`). */
  holdNextFlush(): void {
    if (!this.exited) this.child.stdin.write(`${JSON.stringify({ hold: true })}\n`);
  }

  signal(signal: NodeJS.Signals): void {
    if (!this.exited) this.child.kill(signal);
  }

  /** SIGKILL, awaited. */
  async kill(): Promise<void> {
    this.killed = true;
    this.signal('SIGCONT');
    this.signal('SIGKILL');
    await this.ended;
  }
}

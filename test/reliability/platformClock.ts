// A clock that behaves like the platform's: timers run on a monotonic time line of their own,
// and the wall clock can step (an NTP correction, a laptop resumed from sleep) without moving
// them. Like Node, a delay above 2^31 − 1 ms fires after 1 ms; such requests are recorded in
// `overflows` so a test can insist there are none. Time moves only when the test calls `elapse`.
import type { Clock } from '../../src/ports.ts';
import type { Settleable } from '../../src/testing.ts';

const MAX_TIMER_MS = 2 ** 31 - 1;

const macrotask = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

interface Timer {
  readonly due: number;
  readonly seq: number;
  readonly fn: () => void;
}

/** Wall clock plus monotonic timers; see the file comment. */
export class PlatformLikeClock implements Clock {
  wallMs: number;
  monoMs = 0;
  /** Delays that exceeded the platform limit. */
  readonly overflows: number[] = [];
  private seq = 0;
  private readonly timers = new Map<number, Timer>();
  private service: Settleable | undefined;

  constructor(startIso: string) {
    this.wallMs = Date.parse(startIso);
  }

  /** Waits for the service to go idle after each timer fires. */
  attach(service: Settleable): void {
    this.service = service;
  }

  now = (): number => this.wallMs;

  setTimeout = (fn: () => void, ms: number): unknown => {
    let delay = Number.isFinite(ms) && ms > 0 ? ms : 0;
    if (delay > MAX_TIMER_MS) {
      this.overflows.push(ms);
      delay = 1;
    }
    const id = ++this.seq;
    this.timers.set(id, { due: this.monoMs + delay, seq: id, fn });
    return id;
  };

  clearTimeout = (handle: unknown): void => {
    this.timers.delete(handle as number);
  };

  get pendingTimers(): number {
    return this.timers.size;
  }

  private async settle(): Promise<void> {
    await macrotask();
    await this.service?.whenIdle();
    await macrotask();
  }

  /** Lets `ms` of monotonic time pass; the wall clock moves along with it, timers fire in order. */
  async elapse(ms: number): Promise<void> {
    const end = this.monoMs + ms;
    for (let fired = 0; ; fired++) {
      if (fired > 1_000_000) throw new Error('PlatformLikeClock: more than a million timer firings in one elapse');
      let next: [number, Timer] | undefined;
      for (const entry of this.timers) {
        const t = entry[1];
        if (t.due > end) continue;
        if (next === undefined || t.due < next[1].due || (t.due === next[1].due && t.seq < next[1].seq)) next = entry;
      }
      if (next === undefined) break;
      this.timers.delete(next[0]);
      this.wallMs += next[1].due - this.monoMs;
      this.monoMs = next[1].due;
      next[1].fn();
      await this.settle();
    }
    this.wallMs += end - this.monoMs;
    this.monoMs = end;
    await this.settle();
  }

  /** Steps only the wall clock (forwards or backwards); pending timers keep their monotonic due times. */
  jumpWall(ms: number): void {
    this.wallMs += ms;
  }
}

// A clock whose wall time runs fast, for trials that need real deliveries in little real time:
// every real millisecond counts as `factor` simulated ones (60 000: a real millisecond is a
// simulated minute), and a timer asked for `ms` simulated milliseconds waits `ms / factor` real
// ones. Time is read from the monotonic `performance` clock anchored at a given real instant, so
// a process watching from outside (the crash trials' parent) can work out what the clock read at
// any real moment. It never reads the system wall clock.
import type { Clock } from '../../src/ports.ts';

const MAX_TIMER_MS = 2 ** 31 - 1;

/** Real time in epoch milliseconds, from the monotonic clock (comparable between processes). */
export const realNow = (): number => performance.timeOrigin + performance.now();

/** Where an accelerated clock starts and how fast it runs. */
export interface AcceleratedClockAnchor {
  /** The simulated wall time (epoch ms) at `realStart`. */
  readonly simStart: number;
  /** The real instant (see {@link realNow}) the simulated time starts at. */
  readonly realStart: number;
  /** Simulated milliseconds per real millisecond. */
  readonly factor: number;
}

/** The simulated time an anchor gives at the real instant `real` (whole milliseconds, rounded down). */
export const simulatedAt = (anchor: AcceleratedClockAnchor, real: number): number =>
  Math.floor(anchor.simStart + Math.max(0, real - anchor.realStart) * anchor.factor);

/** A {@link Clock} running `anchor.factor` times faster than real time. */
export function createAcceleratedClock(anchor: AcceleratedClockAnchor): Clock {
  return {
    now: () => simulatedAt(anchor, realNow()),
    setTimeout(fn, ms) {
      const simulated = Number.isFinite(ms) && ms > 0 ? ms : 0;
      return setTimeout(fn, Math.min(MAX_TIMER_MS, Math.ceil(simulated / anchor.factor)));
    },
    clearTimeout(handle) {
      clearTimeout(handle as ReturnType<typeof setTimeout>);
    },
  };
}

// The clock of the cluster benchmark's Host processes: wall time running at real speed from an
// anchor the parent gives (so every process reads the same time at the same real instant), which
// the parent can move. `moveTo(sim, real)` makes the clock read `sim` at the real instant `real`
// and re-arms every pending timer for its simulated due time on the new time line, so a burst the
// tasks were created for arrives at a real moment the parent chose, after every create.
import type { Clock } from '../../src/ports.ts';
import { realNow } from '../../test/reliability/acceleratedClock.ts';

const MAX_TIMER_MS = 2 ** 31 - 1;

interface Pending {
  /** The simulated instant the timer is due at. */
  readonly due: number;
  readonly fn: () => void;
  handle: ReturnType<typeof setTimeout>;
}

/** A clock at real speed whose reading the parent can move; see the file comment. */
export interface MovableClock extends Clock {
  /** From the real instant `real` (see `realNow`) on, the clock reads `sim` and runs on at real speed. */
  moveTo(sim: number, real: number): void;
}

export function createMovableClock(start: { readonly simStart: number; readonly realStart: number }): MovableClock {
  let anchor = { ...start };
  const pending = new Set<Pending>();
  const now = (): number => Math.floor(anchor.simStart + (realNow() - anchor.realStart));
  const arm = (timer: Pending): void => {
    timer.handle = setTimeout(
      () => {
        pending.delete(timer);
        timer.fn();
      },
      Math.min(MAX_TIMER_MS, Math.max(0, timer.due - now())),
    );
  };
  return {
    now,
    setTimeout(fn, ms) {
      const timer: Pending = { due: now() + (Number.isFinite(ms) && ms > 0 ? ms : 0), fn, handle: undefined as never };
      pending.add(timer);
      arm(timer);
      return timer;
    },
    clearTimeout(handle) {
      const timer = handle as Pending;
      if (!pending.delete(timer)) return;
      clearTimeout(timer.handle);
    },
    moveTo(sim, real) {
      anchor = { simStart: sim, realStart: real };
      for (const timer of pending) {
        clearTimeout(timer.handle);
        arm(timer);
      }
    },
  };
}

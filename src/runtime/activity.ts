// Counts the work in progress — calls in the mailbox, delivery attempts, timer callbacks — so
// `whenIdle()` can resolve once none is left. Pending timers are not work: a service waiting for
// its next target is idle. Waiters are released only after the count has stayed at zero through
// a few microtask turns, so work started by the last completion is seen.

const SETTLE_TURNS = 4;

export class Activity {
  private count = 0;
  private waiters: Array<() => void> = [];
  private checking = false;

  begin(): void {
    this.count++;
  }

  end(): void {
    this.count--;
    if (this.count === 0) this.scheduleCheck();
  }

  /** Resolves when nothing is in progress. */
  whenIdle(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.waiters.push(resolve);
      this.scheduleCheck();
    });
  }

  private scheduleCheck(): void {
    if (this.checking || this.waiters.length === 0) return;
    this.checking = true;
    let turns = 0;
    const check = (): void => {
      if (this.count > 0) {
        this.checking = false;
        return;
      }
      if (++turns < SETTLE_TURNS) {
        queueMicrotask(check);
        return;
      }
      this.checking = false;
      const waiters = this.waiters;
      this.waiters = [];
      for (const resolve of waiters) resolve();
    };
    queueMicrotask(check);
  }
}

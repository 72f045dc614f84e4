// A counting limiter: at most `limit` tasks run at once, the rest wait in arrival order. The
// service runs Session restores (`resolveAgent`) through one, so a Host that wakes with thousands
// of overdue Sessions restores them a few at a time.

export class Limiter {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  /** Runs `task` when a place is free; the place is released when it settles. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next !== undefined) next();
      else this.running--;
    }
  }

  /** Tasks running now. */
  get active(): number {
    return this.running;
  }
}

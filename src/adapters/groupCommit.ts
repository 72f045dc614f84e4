// Group commit: items submitted while a write is in flight wait and go out together in the next
// write. Each submitter's promise settles with the write that holds its item — resolved once that
// write is durable, rejected with that write's error — so nothing is reported as stored that is
// not. The first write starts in a microtask, so items submitted in one synchronous burst share
// it. An `after` step (compaction) may run between writes; items arriving meanwhile wait for it.
interface Waiter<T> {
  readonly item: T;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/** Serialises writes and coalesces the items that queue up behind each one. */
export class GroupCommit<T> {
  private queue: Waiter<T>[] = [];
  private running = false;
  private idleWaiters: Array<() => void> = [];

  /**
   * @param write writes a group durably, or throws (every item of the group is then rejected
   *   with what `mapError` makes of the error).
   * @param after runs after each successful write, before the next group starts; it must not throw.
   */
  constructor(
    private readonly write: (items: readonly T[]) => Promise<void>,
    private readonly mapError: (error: unknown) => unknown = (error) => error,
    private readonly after: () => Promise<void> = async () => undefined,
  ) {}

  /** Queues an item; settles when the write holding it has succeeded or failed. */
  submit(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.running) {
        this.running = true;
        queueMicrotask(() => void this.run());
      }
    });
  }

  /** Resolves once nothing is queued or being written. */
  idle(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private async run(): Promise<void> {
    while (this.queue.length > 0) {
      const group = this.queue;
      this.queue = [];
      let failure: { error: unknown } | undefined;
      try {
        await this.write(group.map((w) => w.item));
      } catch (error) {
        failure = { error: this.mapError(error) };
      }
      for (const waiter of group) {
        if (failure === undefined) waiter.resolve();
        else waiter.reject(failure.error);
      }
      if (failure === undefined) await this.after();
    }
    this.running = false;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}

// `whenIdle()`: resolves once the actor system has nothing in progress, read from the actors' own
// states — the supervisor in `running.idle` with an empty mailbox (or closed), and no Session actor
// with a delivery attempt in flight (`delivering` or `committing`). Every piece of work is one of
// those states: a call or a delivery commit waits in the mailbox or runs in a slot, an attempt is
// its Session's state. The one exception is a wake the timer queued for the end of the current
// turn (a parked task's retry after a commit, a waiting receipt's write); while one is queued the
// state is read again at the end of that turn. Pending timers are not work: a service waiting for
// its next target is idle. A read of stored rows ahead of their horizon is work no actor shows; the
// runtime counts it as busy and asks for a recheck when it ends. The states are read again whenever the supervisor takes an event — and
// every change of a Session's attempt is one (the flushed outcome, its settle, a failure) — one
// microtask later, once the cascade of sends that event started has run.
import type { AnyActorRef, Subscription } from 'xstate';

/** What the states say: nothing in progress, something in progress, or only a wake queued for this turn. */
export type Quiet = 'idle' | 'busy' | 'soon';

export class IdleWatch {
  private waiters: Array<() => void> = [];
  private subscription: Subscription | null = null;
  private scheduled = false;

  constructor(
    private readonly supervisor: () => AnyActorRef | null,
    private readonly quiet: () => Quiet,
  ) {}

  whenIdle(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.waiters.push(resolve);
      this.watch();
      this.schedule();
    });
  }

  /** Work the actors' states do not show (a read of stored rows) has ended: the states are read again. */
  recheck(): void {
    this.schedule();
  }

  private watch(): void {
    const supervisor = this.supervisor();
    if (this.subscription !== null || supervisor === null) return;
    const recheck = (): void => this.schedule();
    this.subscription = supervisor.subscribe({ next: recheck, error: recheck, complete: recheck });
  }

  private schedule(): void {
    if (this.scheduled || this.waiters.length === 0) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      this.check();
    });
  }

  private check(): void {
    if (this.waiters.length === 0) return;
    const state = this.quiet();
    if (state === 'busy') return;
    if (state === 'soon') {
      this.schedule();
      return;
    }
    const waiters = this.waiters;
    this.waiters = [];
    this.subscription?.unsubscribe();
    this.subscription = null;
    for (const resolve of waiters) resolve();
  }
}

// What one Host runs when many share a database: a schedule service for each shard it holds (its
// Sessions' task actors, its timer, its deliveries, over a storage that reads only that shard and
// fences every commit with the shard's lease), and the dispatch of every call that names a
// Session — run here when this Host holds the Session's shard, handed to the owner otherwise.
// The lease keeper tells it which shards it gained and lost; the router carries calls to other
// Hosts and brings theirs here. A shard's service opens when its lease is gained (and, given
// timers, opens again after a failed open) and closes when it is released (after the delivery in
// flight) or lost. Each term of holding a shard is its own: the service of a term that ended can
// commit nothing (its fence names no epoch from then on), even when this Host takes the shard
// back at the same epoch, and the next term's service opens only once the last one has closed.
// Shards taken over from a Host whose lease ran out open at once, all of them: nobody serves them
// meanwhile and their due reminders wait, and each open is a chain of round trips that, made to
// wait its turn behind the others on a busy pool, would deliver the last of them many opens late.
// Other opens take turns, at most `maxOpening` at a time (16 by default): a Host taking dozens of
// shards handed on, or never held, opens them a few at a time rather than starving its own commits
// and deliveries of connections — those handed on by their owner before those never held.
// A shard offered to this Host by its owner is read ahead (`prepare`, given `prepareShard`) while
// the owner still serves it; when its lease arrives the service opens from what was read, at once.
// `openCapacity()` (every shard not yet open counts, and every shard read ahead) tells the lease
// keeper how many more this Host can take now.
import { ScheduleError } from '../domain/errors.ts';
import type { Logger } from '../ports.ts';
import type { ScheduleService } from '../service.ts';
import { answerOf, type RoutedAnswer, type RoutedCall, runRouted, settle } from './routedCall.ts';

/** What a Host read of a shard ahead of holding it (see {@link ShardHostOptions.prepareShard}). */
export interface PreparedShard {
  /** Lets go of what was read, unused. */
  discard(): void;
}

/** What a shard host needs: how to open a shard's service, how to reach the other Hosts, which shard a Session is in. */
export interface ShardHostOptions<P extends PreparedShard = PreparedShard> {
  /**
   * Opens the service of a shard this Host now holds at `epoch`, from what `prepareShard` read of
   * it when given. `current()` is true while this term lasts: a fenced storage names the epoch
   * only then.
   */
  openShard(shard: number, epoch: number, current: () => boolean, prepared?: P): Promise<ScheduleService>;
  /** Reads a shard offered to this Host, to open it at `epoch` once held; without it nothing is read ahead. */
  prepareShard?(shard: number, epoch: number): Promise<P>;
  /** Hands a call to the Host that holds its Session's shard, and resolves to its answer. */
  route(call: RoutedCall): Promise<RoutedAnswer>;
  /** The shard (0–255) a Session belongs to. */
  shardOf(sessionId: string): number;
  readonly logger?: Logger;
  /**
   * How a shard whose service could not be opened (the database refused a connection, say) is
   * opened again while it is still held: after `firstMs` (default 1000), doubling up to 30 s, on
   * these timers. Without them such a shard stays closed until its lease moves.
   */
  readonly reopen?: {
    readonly timers: { setTimeout(run: () => void, ms: number): unknown; clearTimeout(handle: unknown): void };
    readonly firstMs?: number;
  };
  /** Hears how many shards this Host holds each time a shard is gained or given up (the metrics' gauge). */
  readonly onHeld?: (count: number) => void;
  /** How many shards' services open at once (default 16), but for those taken over, which open at once; the others wait their turn. */
  readonly maxOpening?: number;
  /** Hears each time an open finished (opened or failed): this Host can take another shard. */
  readonly onOpened?: () => void;
}

/** How urgently a shard's service is opened: lower first (see the header). */
export type OpenUrgency = 'expired' | 'handed' | 'released' | 'new';

/** Shards taken over and shards handed over (read already) open at once; the others take turns. */
const URGENCY: Readonly<Record<OpenUrgency, number>> = { expired: 0, handed: 0, released: 1, new: 2 };

/** Shards whose services open at once, by default. */
export const DEFAULT_MAX_OPENING = 16;

/** The open of a shard released before its turn came: nothing to close, and a call waiting for it did not run. */
class NotOpened extends Error {
  constructor() {
    super('The shard was handed on before its service opened here; the call did not run here.');
  }
}

interface Turn {
  readonly rank: number;
  readonly start: () => void;
  readonly cancel: () => void;
}

/** The longest pause between two attempts to open a shard's service. */
const MAX_REOPEN_MS = 30_000;

interface HeldShard {
  readonly epoch: number;
  /** The shard's service once open (rejects when it could not be opened). */
  readonly service: Promise<ScheduleService>;
  /** `current` is true until the term ends (released, lost, or the Host closed). */
  readonly term: { current: boolean };
  /** The pending attempt to open it again after a failed open. */
  retry?: unknown;
  /** Set once its service is open. */
  open?: boolean;
  /** Gives up its place in the queue of opens, while it waits there. */
  cancel?: (() => void) | undefined;
}

export class ShardHost<P extends PreparedShard = PreparedShard> {
  private readonly shards = new Map<number, HeldShard>();
  /** Shards read ahead of their hand-over, with the epoch they will be held at. */
  private readonly prepared = new Map<number, { readonly epoch: number; readonly read: Promise<P> }>();
  /** The close of each shard's last term, which the next term's open waits for. */
  private readonly closing = new Map<number, Promise<void>>();
  private closed = false;
  /** Opens waiting for a turn, most urgent first. */
  private readonly queue: Turn[] = [];
  /** Opens running now. */
  private running = 0;
  /** Terms whose service is not yet open (waiting for the last term's close, for a turn, or opening). */
  private opening = 0;
  private readonly maxOpening: number;

  constructor(private readonly options: ShardHostOptions<P>) {
    this.maxOpening = Math.max(1, Math.floor(options.maxOpening ?? DEFAULT_MAX_OPENING));
  }

  /** Whether `shard` is held here with its service open (serving its reminders and calls). */
  serving(shard: number): boolean {
    return this.shards.get(shard)?.open === true;
  }

  /** How many more shards this Host can begin to open now (what the lease keeper takes at most). */
  openCapacity(): number {
    return Math.max(0, this.maxOpening - this.opening);
  }

  /** The shards held, with their epochs. */
  held(): ReadonlyMap<number, number> {
    return new Map([...this.shards].map(([shard, held]) => [shard, held.epoch]));
  }

  /** The epoch this Host holds `shard` at, if it holds it (what a fenced commit checks). */
  epochOf(shard: number): number | undefined {
    return this.shards.get(shard)?.epoch;
  }

  /**
   * The lease of `shard` was gained (`from` where: see {@link OpenUrgency}): its service opens in
   * its turn, restoring the shard's tasks — at once from what was read ahead at this epoch.
   */
  acquired(shard: number, epoch: number, from: OpenUrgency = 'new'): void {
    const ahead = this.takePrepared(shard);
    if (ahead?.epoch === epoch) {
      this.open(shard, epoch, 0, URGENCY.handed, ahead.read);
      return;
    }
    if (ahead !== undefined) void ahead.read.then((read) => read.discard()).catch(() => undefined);
    this.open(shard, epoch, 0, URGENCY[from] ?? URGENCY.new);
  }

  /**
   * Reads `shard`, offered to this Host, to open it at `epoch` when its lease arrives; resolves
   * true once read, false when it could not be (or nothing reads ahead here). Counted as an open.
   */
  async prepare(shard: number, epoch: number): Promise<boolean> {
    const { prepareShard } = this.options;
    if (prepareShard === undefined || this.closed || this.shards.has(shard)) return false;
    this.unprepare(shard);
    const entry = { epoch, read: prepareShard.call(this.options, shard, epoch) };
    this.prepared.set(shard, entry);
    this.opening++;
    try {
      await entry.read;
      return this.prepared.get(shard) === entry;
    } catch (error) {
      this.options.logger?.warn('A shard offered to this Host could not be read ahead; it is opened when its lease arrives.', {
        shard,
        cause: error,
      });
      if (this.prepared.get(shard) === entry) this.takePrepared(shard);
      return false;
    }
  }

  /** What was read ahead of `shard` will not be used: it is let go. */
  unprepare(shard: number): void {
    void this.takePrepared(shard)
      ?.read.then((read) => read.discard())
      .catch(() => undefined);
  }

  private takePrepared(shard: number): { readonly epoch: number; readonly read: Promise<P> } | undefined {
    const entry = this.prepared.get(shard);
    if (entry === undefined) return undefined;
    this.prepared.delete(shard);
    this.opening--;
    this.options.onOpened?.();
    return entry;
  }

  private open(shard: number, epoch: number, failures: number, rank: number, ahead?: Promise<P>): void {
    if (this.closed) return;
    const term = { current: true };
    const previous = this.closing.get(shard) ?? Promise.resolve();
    const box: { held?: HeldShard } = {};
    const isCurrent = () => term.current && box.held !== undefined && this.shards.get(shard) === box.held && !this.closed;
    this.opening++;
    const service = previous
      .then(() => (isCurrent() ? this.turn(rank, box) : Promise.reject(new NotOpened())))
      .then(async (done) => {
        try {
          if (!isCurrent()) throw new NotOpened();
          return await this.options.openShard(shard, epoch, () => term.current, ahead === undefined ? undefined : await ahead);
        } finally {
          done();
        }
      })
      .finally(() => {
        this.opening--;
        this.options.onOpened?.();
      });
    const held: HeldShard = { epoch, service, term };
    box.held = held;
    service.then(
      () => {
        held.open = true;
      },
      () => undefined,
    );
    this.shards.set(shard, held);
    this.options.onHeld?.(this.shards.size);
    service.catch((error: unknown) => {
      if (error instanceof NotOpened) return;
      const { reopen } = this.options;
      if (reopen === undefined) {
        this.options.logger?.error('A shard could not be opened; its calls are refused until its lease moves.', { shard, cause: error });
        return;
      }
      const waitMs = Math.min(MAX_REOPEN_MS, (reopen.firstMs ?? 1_000) * 2 ** failures);
      this.options.logger?.error('A shard could not be opened; it is opened again shortly.', { shard, retryInMs: waitMs, cause: error });
      if (this.shards.get(shard) !== held || this.closed) return;
      held.retry = reopen.timers.setTimeout(() => {
        // Still held at the same term, and not opened since: try again.
        if (this.shards.get(shard) === held && !this.closed) this.open(shard, epoch, failures + 1, rank);
      }, waitMs);
    });
  }

  /** Waits for a turn to open (most urgent first); resolves to the function that ends it. */
  private turn(rank: number, box: { held?: HeldShard }): Promise<() => void> {
    return new Promise((resolve, reject) => {
      const entry: Turn = {
        rank,
        start: () => {
          if (box.held !== undefined) box.held.cancel = undefined;
          this.running++;
          let ended = false;
          resolve(() => {
            if (ended) return;
            ended = true;
            this.running--;
            this.pump();
          });
        },
        cancel: () => {
          const at = this.queue.indexOf(entry);
          if (at >= 0) this.queue.splice(at, 1);
          reject(new NotOpened());
        },
      };
      if (box.held !== undefined) box.held.cancel = entry.cancel;
      if (rank === URGENCY.expired) {
        entry.start();
        return;
      }
      const after = this.queue.findIndex((waiting) => waiting.rank > rank);
      this.queue.splice(after < 0 ? this.queue.length : after, 0, entry);
      this.pump();
    });
  }

  private pump(): void {
    while (this.running < this.maxOpening) {
      const next = this.queue.shift();
      if (next === undefined) return;
      next.start();
    }
  }

  /** The shard is handed to another Host: its service closes once its delivery in flight is recorded. */
  async release(shard: number): Promise<void> {
    const held = this.shards.get(shard);
    if (held === undefined) return;
    // New calls go to the shard's next owner from now on; those already sent finish here.
    this.shards.delete(shard);
    this.options.onHeld?.(this.shards.size);
    if (held.retry !== undefined) this.options.reopen?.timers.clearTimeout(held.retry);
    // One still waiting for its turn to open gives it up: there is nothing to close.
    held.cancel?.();
    const closed = this.closeTerm(shard, held);
    this.closing.set(shard, closed);
    await closed;
    if (this.closing.get(shard) === closed) this.closing.delete(shard);
  }

  /** The lease of `shard` was lost: its term ends at once (nothing more is committed there) and its service stops. */
  async lost(shard: number): Promise<void> {
    const held = this.shards.get(shard);
    if (held !== undefined) held.term.current = false;
    await this.release(shard);
  }

  /** Closes a term's service (a released term records its delivery in flight first); its fence names no epoch from then on. */
  private async closeTerm(shard: number, held: HeldShard): Promise<void> {
    try {
      const service = await held.service;
      await service.close();
    } catch (error) {
      if (error instanceof NotOpened) return;
      this.options.logger?.warn('A released shard did not close cleanly.', { shard, cause: error });
    } finally {
      held.term.current = false;
    }
  }

  /**
   * Runs a call that names a Session: here when this Host holds its shard, else at the Host that
   * does. `signal` aborts it while it waits here; it does not travel to another Host.
   */
  async dispatch(call: RoutedCall, signal?: AbortSignal): Promise<unknown> {
    if (this.closed) throw new ScheduleError('internal_error', 'The schedule cluster host is closed.');
    const shard = this.options.shardOf(call.sessionId);
    const held = this.shards.get(shard);
    if (held === undefined) return settle(await this.options.route(call));
    const answer = await this.runHeld(held, call, signal);
    // Refused by a service that closed as its shard moved: the call did not run; its new owner runs it.
    if ('error' in answer && answer.error.code === 'internal_error' && this.shards.get(shard) !== held && !this.closed) {
      return this.dispatch(call, signal);
    }
    return settle(answer);
  }

  /**
   * Runs a call another Host handed here. When the shard is no longer here the call did not run,
   * and the answer says so; the caller may try again.
   */
  async execute(call: RoutedCall): Promise<RoutedAnswer> {
    const held = this.shards.get(this.options.shardOf(call.sessionId));
    if (held === undefined) return notHeld(call);
    return this.runHeld(held, call);
  }

  private async runHeld(held: HeldShard, call: RoutedCall, signal?: AbortSignal): Promise<RoutedAnswer> {
    return answerOf(async () => runRouted(await held.service, call, signal));
  }

  /** Releases every shard (each after its delivery in flight); calls are refused from then on. */
  async close(): Promise<void> {
    this.closed = true;
    for (const shard of [...this.prepared.keys()]) this.unprepare(shard);
    await Promise.all([...this.shards.keys()].map((shard) => this.release(shard)));
  }

  /** The services of the shards held (of those of `among` only, when given) once open (one that failed to open is left out). */
  async services(among?: Iterable<number>): Promise<ScheduleService[]> {
    const shards = among === undefined ? [...this.shards.values()] : [...new Set(among)].flatMap((shard) => this.shards.get(shard) ?? []);
    const open = await Promise.all(shards.map((held) => held.service.catch(() => undefined)));
    return open.filter((service): service is ScheduleService => service !== undefined);
  }

  /** Every held shard's service is idle. */
  async whenIdle(): Promise<void> {
    for (const held of this.shards.values()) {
      const service = await held.service.catch(() => undefined);
      await service?.whenIdle();
    }
  }
}

const notHeld = (call: RoutedCall): RoutedAnswer => ({
  error: {
    code: 'persistence_uncertain',
    message: `The Host this call reached no longer holds the shard of Session ${JSON.stringify(call.sessionId)}; the call did not run here.`,
  },
});

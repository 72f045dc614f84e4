// The shard keeper: one Host's share of the 256 shards, kept by a loop over the membership table
// and the shard leases. Each step heartbeats the Host's membership and reads the live Hosts (by
// the database's clock), renews the leases it holds (one that did not come back is lost),
// acquires free or expired shards up to its share, and, when it holds more than its share while
// other Hosts are live, hands the surplus back: the owner's `release(shard)` is awaited (so the
// shard's work in flight finishes under the lease) before the lease row is freed. Steps run every
// `leaseMs / 3`, and sooner when another Host's membership or lease runs out before then (a Host that
// missed its renewals), so its shards are taken as soon as the database lets them go, and at once
// when another Host joins (`notice`), so the newcomer is offered its share; while a step is slow
// (a long release), the tick only renews. A lease is counted lost
// `leaseMs` after the local instant its last renewal was sent — never later than the database can
// let another Host take it — also when the database cannot be reached; the keeper keeps trying.
//
// Given a `pace`, the running loop moves shards only as fast as Hosts can open them (steps run by
// the caller, without the loop, still take and give everything at once):
// - While other Hosts are live, a step takes no more shards than the owner can begin to open now
//   (`pace.openCapacity()`), so a Host that opens slowly — a newcomer on a busy machine — takes
//   its share a few at a time, and the shards it cannot open yet stay with Hosts that serve them.
//   A Host alone takes every shard at once (nobody else could serve them) and opens them in turn.
// - Leases another Host let run out are taken over first, by the established Hosts (members for
//   at least 2 × `leaseMs`, or joined within a lease of the oldest), at once and beyond their
//   share if need be (up to an even split among them): nobody serves those shards meanwhile, and a
//   Host that has served for a while opens them sooner than a newcomer, which takes them only as
//   it can open them.
// - A shard taken from another Host (its lease run out, or released) is not handed on by
//   rebalancing for a grace period, `pace.graceMs` (default 2 × `leaseMs` from its acquisition):
//   long enough to open it and deliver what was overdue, so a takeover's progress is not thrown
//   away by handing the shard straight on to a Host that must open it again. With hand-overs
//   (`pace.prepare`), only a shard taken over is kept so: one released or handed to this Host is
//   read by its next taker while this Host serves it.
// - A Host above its share hands on the shards it does not serve yet (`pace.serving`: their services
//   still wait to open) at once: nobody serves them meanwhile either way. Those it serves it hands
//   on only while few shards wait for an owner: no lease has run out, and fewer than
//   `pace.handoffBatch` (default 16) for each Host below its share are free — it tops that up, so a
//   taker always finds a few to take as it gets room to open them, while the holder keeps serving
//   the rest. Each Host above its share tops up only its part of that batch (the Hosts above their
//   share may step on the same view, as another Host's arrival wakes them all). Of those it serves
//   it hands on only shards whose next reminder (the tasks' `next_target`, by `pace.now`) is at
//   least `pace.quietMs` off (default `leaseMs / 4`), the furthest off first: a shard handed on has
//   no owner until the taker has opened it, and a reminder due meanwhile would wait for that. A busy
//   shard so stays with its holder, which delivers its reminders, until it is quiet; only when no
//   shard has been quiet enough for `pace.graceMs` do the quietest go anyway. While a Host is above
//   or below its share its loop steps every `leaseMs / 24`, and a Host that wanted more than it
//   could open steps again as soon as an open finishes (`nudge()`).
// - Given `pace.prepare`, a served shard is not released but handed over (docs/cluster.md): its
//   owner offers it to the Host furthest below its share and serves it meanwhile; the taker reads
//   it (`prepare`, counted against what it can open) and says it is ready; the owner then stops
//   its work there (the release hook) and, in one statement, moves the lease to the taker at the
//   next epoch and notifies the shard, so the taker steps at once and serves what it has read. An
//   offer not ready within `pace.offerMs` (default `leaseMs`) is withdrawn and the shard released.
//   Shards offered to a Host count towards its share, so no Host takes or offers more meanwhile.
// The fence by epoch stays the safety net: whatever the pace, a shard's commits pass only under
// its current owner's lease.
import { ScheduleError } from '../../domain/errors.ts';
import { SHARDS } from '../../domain/tasks/sessionShard.ts';
import type { StepReport } from '../../ports.ts';
import { ClusterHosts, type ClusterView, JOINED_PREFIX } from './clusterHosts.ts';
import { reasonOf, type SqlPool } from './driver.ts';
import { DEFAULT_SCHEMA } from './postgresStorage.ts';
import { checkHostId, fairShare, MAX_LEASE_MS, OFFERED_PREFIX, type ShardLease, ShardLeases } from './shardLeases.ts';

/** The default lease, in ms. */
export const DEFAULT_LEASE_MS = 15_000;

/** How long after another Host's lapse (by the database's clock) the early step runs, in ms. */
const LAPSE_SLACK_MS = 25;

/** How many shards handed on may wait for a taker, for each Host below its share, by default. */
export const DEFAULT_HANDOFF_BATCH = 16;

/** How a running keeper paces the moving of shards (see the header). */
export interface KeeperPace {
  /** How many more shards the owner can begin to open now; a step takes no more than this. */
  readonly openCapacity: () => number;
  /** Whether the owner serves `shard` now (its service is open); default: every shard held is served. */
  readonly serving?: (shard: number) => boolean;
  /** How many shards handed on may wait for an owner, for each Host below its share (default 16). */
  readonly handoffBatch?: number;
  /**
   * How long a shard taken from another Host is kept before rebalancing may hand it on, in ms
   * (default 2 × `leaseMs`); also how long a hand-off waits for a quiet shard (see `quietMs`).
   */
  readonly graceMs?: number;
  /**
   * A shard the owner serves is handed on only when its next reminder is at least this far off,
   * in ms (default `leaseMs / 4`) — unless none has been for `graceMs`, when the quietest go.
   */
  readonly quietMs?: number;
  /** The clock reminders fall due by, ms since the epoch (default `Date.now()`): the owner's services' clock. */
  readonly now?: () => number;
  /**
   * Reads `shard`, offered to this Host, ahead of holding it at `epoch`; resolves true once this
   * Host can serve it from what it read, false when it cannot (the offer then lapses). Given, this
   * Host hands the shards it serves over to others instead of releasing them (see the header).
   */
  readonly prepare?: (shard: number, epoch: number) => Promise<boolean>;
  /** What `prepare` read of `shard` will not be used: the offer was withdrawn or the shard went elsewhere. */
  readonly unprepare?: (shard: number) => void;
  /** How long an offer waits for its taker to be ready before the shard is released instead, in ms (default `leaseMs`). */
  readonly offerMs?: number;
}

/** The time the keeper runs on: timers for its loop and a monotonic clock (default: the process's). */
export interface KeeperTimers {
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /** A monotonic clock in ms (default `performance.now()`); lease deadlines are measured on it. */
  now?(): number;
}

/** Options of {@link shardKeeper}. */
export interface ShardKeeperOptions {
  /** The pool to run on; never ended here. */
  readonly pool: SqlPool;
  /** The schema holding the tables; default `agent_schedule`. Migrated on first use. */
  readonly schema?: string;
  /** This Host, unique among the running processes (a restarted process with the same id takes back what the old one still owned). */
  readonly hostId: string;
  /** How long a lease and a membership last without renewal, in ms (default 15000); steps run every third of it. */
  readonly leaseMs?: number;
  /** Timers and clock; default the process's. */
  readonly timers?: KeeperTimers;
  /** A shard is this Host's, at the lease's epoch: start its work (fenced at that epoch). */
  readonly onAcquired: (lease: ShardLease) => void;
  /** A shard's lease is lost (taken, expired or unconfirmed in time): stop its work at once; its commits are refused. */
  readonly onLost: (shard: number) => void;
  /** The keeper gives a shard back: finish its work in flight and stop it; the lease is freed once this settles. */
  readonly release: (shard: number) => Promise<void>;
  /** A failure the keeper survived (an unreachable database, a hook that threw). */
  readonly onError?: (error: unknown) => void;
  /** Paces the running loop's takeovers and hand-offs by what the owner can open (see the header); default: unpaced. */
  readonly pace?: KeeperPace;
}

/**
 * The share of the Host ranked `rank` (0 = oldest membership) among `liveHosts`: the 256 shards
 * split as evenly as they go, the oldest Hosts taking the remainder, so the shares add up to 256
 * and none exceeds `fairShare(liveHosts)`.
 *
 * @throws ScheduleError `internal_error` when `liveHosts` is not a whole number ≥ 1.
 */
export function hostShare(rank: number, liveHosts: number): number {
  const most = fairShare(liveHosts);
  const remainder = SHARDS % liveHosts;
  return remainder === 0 || rank < remainder ? most : most - 1;
}

interface Held {
  lease: ShardLease;
  /** The local instant (on the keeper's clock) by which the lease may have expired. */
  deadline: number;
  /** Until when (keeper clock) a paced rebalancing keeps it: a shard taken from another Host is not handed straight on. */
  readonly keepUntil: number;
}

/** A shard this Host offered to another (see the header). */
interface Offered {
  readonly to: string;
  /** When it was offered, on the keeper's clock. */
  readonly since: number;
}

/** What a paced step gives up of its surplus: shards to release, and served ones to offer. */
interface Surplus {
  readonly release: number[];
  readonly offer: { shard: number; to: string }[];
  readonly handOver: number[];
  /** Offers to Hosts that left: withdrawn, the shards kept. */
  readonly withdraw: number[];
}

interface Sinks {
  readonly acquired: number[];
  readonly lost: number[];
}

type Phase = 'idle' | 'running' | 'stopping';

const ALL_SHARDS = Array.from({ length: SHARDS }, (_, shard) => shard);

const invalid = (message: string): ScheduleError => new ScheduleError('internal_error', message);

/** One Host's keeper of its shard leases; see {@link shardKeeper}. */
export class ShardKeeper {
  readonly hostId: string;
  readonly leaseMs: number;
  private readonly leases: ShardLeases;
  private readonly members: ClusterHosts;
  private readonly timers: KeeperTimers;
  private readonly now: () => number;
  private readonly mine = new Map<number, Held>();
  /** Shards whose release hook is running. */
  private readonly releasing = new Set<number>();
  /** Shards given back whose lease row is not yet known to be freed. */
  private readonly unfreed = new Set<number>();
  private lock: Promise<void> = Promise.resolve();
  private phase: Phase = 'idle';
  /** Set once a stop has begun to free the leases: a renewal queued behind it must not run (it would join again). */
  private leaving = false;
  private stepping: Promise<StepReport> | undefined;
  private renewing: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;
  private tickHandle: unknown;
  /** When the pending tick runs, on the keeper's clock. */
  private tickAt = Number.POSITIVE_INFINITY;
  private watchHandle: unknown;
  /** The last paced step wanted more shards than the owner could open then. */
  private hungry = false;
  /** An open finished while a step ran: step again once it is over. */
  private stepAgain = false;
  private readonly graceMs: number;
  private readonly quietMs: number;
  private readonly handoffBatch: number;
  /** Since when (keeper clock) the paced hand-off has found no served shard quiet enough to hand on. */
  private quietWaitSince: number | undefined;
  private readonly offerMs: number;
  /** The shards this Host offered to others and still holds. */
  private readonly offered = new Map<number, Offered>();
  /** The shards offered to this Host that it is reading or has read, with the epoch their owner holds them at. */
  private readonly preparing = new Map<number, number>();

  constructor(private readonly options: ShardKeeperOptions) {
    if (options.pool === undefined) throw invalid('shardKeeper needs a pool.');
    this.hostId = checkHostId(options.hostId);
    const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    if (!Number.isSafeInteger(leaseMs) || leaseMs < 3 || leaseMs > MAX_LEASE_MS) {
      throw invalid(`A shard keeper's leaseMs is a whole number of ms from 3 to ${MAX_LEASE_MS}, not ${String(leaseMs)}.`);
    }
    for (const hook of ['onAcquired', 'onLost', 'release'] as const) {
      if (typeof options[hook] !== 'function') throw invalid(`shardKeeper needs its ${hook} hook (a function).`);
    }
    this.leaseMs = leaseMs;
    const pace = options.pace;
    if (pace !== undefined && typeof pace.openCapacity !== 'function')
      throw invalid("A shard keeper's pace needs openCapacity (a function).");
    this.graceMs = pace?.graceMs ?? 2 * leaseMs;
    this.quietMs = pace?.quietMs ?? Math.floor(leaseMs / 4);
    this.handoffBatch = pace?.handoffBatch ?? DEFAULT_HANDOFF_BATCH;
    this.offerMs = pace?.offerMs ?? leaseMs;
    for (const [name, ms] of [
      ['graceMs', this.graceMs],
      ['quietMs', this.quietMs],
      ['offerMs', this.offerMs],
    ] as const) {
      if (!Number.isSafeInteger(ms) || ms < 0) throw invalid(`A shard keeper's ${name} is a whole number of ms, not ${String(ms)}.`);
    }
    if (!Number.isSafeInteger(this.handoffBatch) || this.handoffBatch < 1) {
      throw invalid(`A shard keeper's handoffBatch is a whole number of at least 1, not ${String(this.handoffBatch)}.`);
    }
    const schema = options.schema ?? DEFAULT_SCHEMA;
    this.leases = new ShardLeases({ pool: options.pool, schema });
    this.members = new ClusterHosts({ pool: options.pool, schema });
    this.timers = options.timers ?? {
      setTimeout: (run, ms) => setTimeout(run, ms),
      clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
    };
    const now = this.timers.now;
    this.now = now === undefined ? () => performance.now() : () => now.call(this.timers);
  }

  /** The leases this Host holds now, shard → epoch, by shard (what a fenced storage's `epochs()` answers). */
  held(): Map<number, number> {
    return new Map([...this.mine.keys()].sort((a, b) => a - b).map((shard) => [shard, this.mine.get(shard)?.lease.epoch ?? 0]));
  }

  /**
   * Whether this Host holds `shard`'s lease and, by its own clock, the lease cannot have run out
   * yet. After a pause (a stopped process, a long stall) this turns false at once, before the
   * next step has told the database's answer: work that must not outlive the lease checks it.
   */
  holds(shard: number): boolean {
    const held = this.mine.get(shard);
    return held !== undefined && this.now() < held.deadline;
  }

  /** The leases this Host holds now, by shard, with their expiry as the database last confirmed it. */
  leasesHeld(): ShardLease[] {
    return [...this.mine.values()].map((h) => h.lease).sort((a, b) => a.shard - b.shard);
  }

  /**
   * One round: heartbeat, renew, acquire up to the share, give back the surplus (awaiting each
   * release hook before freeing its lease). Never rejects: a failure ends the round early and is
   * in the report (and passed to `onError`); leases whose deadline passed meanwhile are lost. A
   * call while a step runs joins it.
   */
  step(): Promise<StepReport> {
    this.stepping ??= this.runStep().finally(() => {
      this.stepping = undefined;
    });
    return this.stepping;
  }

  /**
   * The owner can open more shards now (an open finished): when the last paced step wanted more
   * than it could open, the next step runs at once (or right after the one running).
   */
  nudge(): void {
    if (!this.paced() || !this.hungry) return;
    if (this.stepping !== undefined) this.stepAgain = true;
    else this.tickBy(this.now());
  }

  /**
   * A notification on the calls channel (see `ShardLeases`): shards offered to this Host, or a
   * shard it offered or is taking moved a step on (its number), run the next step at once, to
   * read them, hand it over or take it; so does another Host's arrival (`joined:<host>`, see
   * `ClusterHosts`), to offer it its share. Any other is ignored.
   */
  notice(payload: string): void {
    const shard = Number(payload);
    const ours =
      payload === `${OFFERED_PREFIX}${this.hostId}` ||
      (payload.startsWith(JOINED_PREFIX) && payload !== `${JOINED_PREFIX}${this.hostId}`) ||
      this.offered.has(shard) ||
      this.preparing.has(shard);
    if (!ours || this.phase !== 'running') return;
    if (this.stepping !== undefined) this.stepAgain = true;
    else this.tickBy(this.now());
  }

  /** Whether the running loop paces its steps (see the header). */
  private paced(): boolean {
    return this.options.pace !== undefined && this.phase === 'running';
  }

  /** Starts the loop: a step now (its report is the answer) and one every third of the lease. */
  start(): Promise<StepReport> {
    if (this.phase === 'stopping') return Promise.reject(invalid(`The shard keeper of host ${JSON.stringify(this.hostId)} is stopping.`));
    if (this.phase === 'idle') {
      this.phase = 'running';
      this.leaving = false;
      this.schedule();
    }
    return this.step();
  }

  /**
   * Stops the loop, awaits the release hook of every held shard (renewing meanwhile), frees every
   * lease this Host owns and ends its membership.
   *
   * @throws ScheduleError `persistence_uncertain` when the leases or the membership could not be
   *   freed (they expire on their own); the loop is stopped and nothing is held either way.
   */
  stop(): Promise<void> {
    this.stopping ??= this.runStop().finally(() => {
      this.stopping = undefined;
    });
    return this.stopping;
  }

  private async runStop(): Promise<void> {
    const wasIdle = this.phase === 'idle';
    this.phase = 'stopping';
    if (wasIdle) this.schedule();
    this.watch();
    try {
      await this.stepping;
      this.dropPrepared(() => true);
      const shards = [...this.mine.keys()];
      await this.hooks(shards);
      await this.exclusive(async () => {
        this.leaving = true;
        this.mine.clear();
        this.unfreed.clear();
        this.offered.clear();
        const failures: unknown[] = [];
        await this.leases.release(this.hostId, ALL_SHARDS).catch((error: unknown) => failures.push(error));
        await this.members.leave(this.hostId).catch((error: unknown) => failures.push(error));
        if (failures.length > 0) throw failures[0];
      });
    } finally {
      this.phase = 'idle';
      this.clearTimer('tickHandle');
      this.tickAt = Number.POSITIVE_INFINITY;
      this.clearTimer('watchHandle');
      // The stop is over only when no renewal or step of this keeper is still running.
      await this.renewing;
      await this.stepping;
    }
  }

  private async runStep(): Promise<StepReport> {
    const sinks: Sinks = { acquired: [], lost: [] };
    let liveHosts = 0;
    let share = 0;
    let released: number[] = [];
    let failure: { error: unknown } | undefined;
    this.stepAgain = false;
    try {
      this.expireOverdue(sinks);
      const surplus = await this.exclusive(async (): Promise<Surplus> => {
        const none: Surplus = { release: [], offer: [], handOver: [], withdraw: [] };
        await this.freeUnfreed();
        const beatAt = this.now();
        const view = await this.members.heartbeat(this.hostId, this.leaseMs);
        if (view.nextLapseMs !== null) this.tickBy(beatAt + view.nextLapseMs - view.databaseNowMs + LAPSE_SLACK_MS);
        await this.renew(sinks, this.phase !== 'stopping');
        liveHosts = view.hosts.length;
        share = hostShare(view.rank < 0 ? liveHosts : view.rank, liveHosts);
        const paced = this.paced();
        if (paced) {
          await this.acquirePaced(view, share, sinks);
          this.prepareOffers(view);
        } else if (this.phase !== 'stopping') await this.acquire(Math.min(share - this.mine.size, SHARDS), false, sinks);
        const offers = this.settleOffers(view);
        if (liveHosts < 2 || this.mine.size - this.offered.size <= share) return { ...none, ...offers };
        const count = this.mine.size - this.offered.size - share;
        const givable = [...this.mine.keys()].filter((s) => !this.releasing.has(s) && !this.offered.has(s)).sort((a, b) => b - a);
        if (!paced) return { ...none, release: givable.slice(0, count).sort((a, b) => a - b) };
        const picked = await this.pacedSurplus(view, givable, count, offers.handOver.length);
        return { ...offers, release: [...offers.release, ...picked.release], offer: picked.offer };
      });
      if (surplus.withdraw.length > 0) await this.leases.withdraw(this.hostId, surplus.withdraw);
      if (surplus.offer.length > 0) await this.offer(surplus.offer);
      const handed = surplus.handOver.length > 0 ? await this.handOver(surplus.handOver) : [];
      released = [...handed, ...(surplus.release.length > 0 ? await this.giveBack(surplus.release) : [])].sort((a, b) => a - b);
      // While shards still move to or from this Host, the loop steps more often than every third of a lease.
      if (this.paced() && (this.mine.size !== share || this.hungry || this.preparing.size > 0)) {
        this.tickBy(this.now() + Math.max(1, Math.floor(this.leaseMs / 24)));
      }
      if (this.stepAgain && this.paced()) this.tickBy(this.now());
    } catch (error) {
      failure = { error };
      this.expireOverdue(sinks);
      this.report(error);
    }
    this.watch();
    return { liveHosts, share, acquired: sinks.acquired, released, lost: sinks.lost, ...failure };
  }

  /** Takes up to `want` shards (only leases run out, with `expiredOnly`). */
  private async acquire(want: number, expiredOnly: boolean, sinks: Sinks): Promise<number> {
    if (want <= 0) return 0;
    const sentAt = this.now();
    const taken = await this.leases.acquire({ hostId: this.hostId, leaseMs: this.leaseMs, want, expiredOnly });
    for (const lease of taken) this.take(lease, sentAt, sinks);
    return taken.length;
  }

  /**
   * A paced step's acquisitions: leases run out first — by an established Host at once, beyond
   * the share if need be (up to an even split among the established Hosts), by a newcomer only as
   * it can open them — then free shards up to the share, no more than the owner can open now
   * (while other Hosts are live).
   */
  private async acquirePaced(view: ClusterView, share: number, sinks: Sinks): Promise<void> {
    // Alone, a Host takes everything at once: nobody else could serve those shards meanwhile.
    let room = view.hosts.length < 2 ? SHARDS : Math.max(0, Math.floor(this.options.pace?.openCapacity() ?? 0));
    const oldest = view.ages[0] ?? 0;
    const established = view.hosts.filter((_, i) => {
      const age = view.ages[i] ?? 0;
      return age >= 2 * this.leaseMs || age >= oldest - this.leaseMs;
    });
    const takesOver = established.includes(this.hostId);
    const takeoverLimit = takesOver ? Math.max(share, Math.ceil(SHARDS / Math.max(1, established.length))) : share;
    // Shards on their way here by hand-over count as held.
    const held = () => this.mine.size + this.preparing.size;
    if (view.expired > 0) {
      const want = Math.min(takeoverLimit - held(), view.expired);
      const taken = await this.acquire(takesOver ? want : Math.min(want, room), true, sinks);
      room = Math.max(0, room - taken);
    }
    await this.acquire(Math.min(share - held(), room), false, sinks);
    this.hungry = held() < share || (view.expired > 0 && held() < takeoverLimit);
  }

  /**
   * The taker's side of a hand-over: reads each shard newly offered to this Host, as far as it can
   * open more, and says it is ready once read; drops what it read of shards no longer offered.
   */
  private prepareOffers(view: ClusterView): void {
    const prepare = this.options.pace?.prepare;
    if (prepare === undefined) return;
    const standing = new Map(view.offers.map((offer) => [offer.shard, offer.epoch]));
    this.dropPrepared((shard, epoch) => standing.get(shard) !== epoch && !this.mine.has(shard));
    let room = Math.max(0, Math.floor(this.options.pace?.openCapacity() ?? 0));
    for (const { shard, epoch, ready } of view.offers) {
      if (room <= 0) break;
      if (ready || this.preparing.has(shard) || this.mine.has(shard)) continue;
      room--;
      this.preparing.set(shard, epoch);
      void (async () => {
        const read = await prepare(shard, epoch + 1);
        if (this.preparing.get(shard) !== epoch) return;
        if (!read || !(await this.leases.ready(this.hostId, shard, epoch))) this.dropPrepared((s) => s === shard);
      })().catch((error: unknown) => {
        if (this.preparing.get(shard) === epoch) this.dropPrepared((s) => s === shard);
        this.report(error);
      });
    }
  }

  /** Forgets the shards being prepared that `which` picks, telling the owner to drop what it read. */
  private dropPrepared(which: (shard: number, epoch: number) => boolean): void {
    for (const [shard, epoch] of [...this.preparing]) {
      if (!which(shard, epoch)) continue;
      this.preparing.delete(shard);
      this.notify(() => this.options.pace?.unprepare?.(shard));
    }
  }

  /**
   * The owner's side of its standing offers, by the leases just renewed: those whose taker is
   * ready are handed over; those whose taker left, and those it did not make, are withdrawn (the
   * shards stay here, served); those that waited `offerMs` are withdrawn and released.
   */
  private settleOffers(view: ClusterView): { release: number[]; handOver: number[]; withdraw: number[] } {
    const release: number[] = [];
    const handOver: number[] = [];
    const withdraw: number[] = [];
    const now = this.now();
    for (const [shard, offer] of [...this.offered]) {
      const standing = this.mine.get(shard)?.lease.offer;
      // Lost, or its offer no longer stands: nothing to settle (a shard still held is offered again as need be).
      if (standing === undefined || standing.to !== offer.to) this.offered.delete(shard);
      else if (!view.hosts.includes(offer.to)) {
        this.offered.delete(shard);
        withdraw.push(shard);
      } else if (standing.ready) handOver.push(shard);
      else if (now - offer.since >= this.offerMs) {
        this.offered.delete(shard);
        release.push(shard);
      }
    }
    // An offer this Host does not know of (one whose withdrawal failed, or made before a restart)
    // would keep its taker waiting: it is withdrawn.
    for (const [shard, held] of this.mine) {
      const known = this.offered.has(shard) || withdraw.includes(shard) || release.includes(shard);
      if (held.lease.offer !== undefined && !known) withdraw.push(shard);
    }
    return { release, handOver, withdraw };
  }

  /** Offers shards to their takers; those the database did not take stay served here, not offered. */
  private async offer(offers: readonly { shard: number; to: string }[]): Promise<void> {
    const since = this.now();
    for (const { shard, to } of offers) this.offered.set(shard, { to, since });
    const made = new Set(await this.leases.offer(this.hostId, offers));
    for (const { shard } of offers) if (!made.has(shard)) this.offered.delete(shard);
  }

  /**
   * Hands over shards whose takers are ready: awaits their release hooks (their work here stops),
   * then moves their leases to the takers; one that did not move (its taker left) is released.
   */
  private async handOver(shards: readonly number[]): Promise<number[]> {
    await this.hooks(shards);
    return this.exclusive(async () => {
      for (const shard of shards) {
        this.offered.delete(shard);
        if (this.mine.delete(shard)) this.unfreed.add(shard);
      }
      const moved = await this.leases.handOver(this.hostId, shards, this.leaseMs);
      for (const shard of moved) this.unfreed.delete(shard);
      return [...moved, ...(await this.freeUnfreed())];
    });
  }

  /**
   * What a paced step hands on of `givable` (highest first), `count` at most: the shards not served
   * yet, then — while no lease has run out — of those served, enough that `handoffBatch` shards
   * for each Host below its share wait for an owner, of those quiet enough (see {@link quietest});
   * never a shard taken from another Host within its grace.
   */
  private async pacedSurplus(
    view: ClusterView,
    givable: readonly number[],
    count: number,
    handing: number,
  ): Promise<{ release: number[]; offer: { shard: number; to: string }[] }> {
    const now = this.now();
    const serving = this.options.pace?.serving ?? (() => true);
    const kept = givable.filter((shard) => now >= (this.mine.get(shard)?.keepUntil ?? 0));
    const unserved = kept.filter((shard) => !serving(shard)).slice(0, count);
    const handed = unserved;
    let wanted = false;
    let picked: number[] = [];
    if (handed.length < count && view.expired === 0) {
      // Each Host's shards held less its share: below it when negative, above it when positive.
      const excess = view.hosts.map((host, rank) => (view.heldBy.get(host) ?? 0) - hostShare(rank, view.hosts.length));
      const below = excess.filter((n) => n < 0).length;
      const above = excess.filter((n) => n > 0).length;
      const waiting = this.handoffBatch * Math.max(1, below);
      // Offers this step hands over no longer wait for their taker: the next ones go out now.
      const offeredNow = [...view.offeredTo.values()].reduce((sum, n) => sum + n, 0) - handing;
      // The Hosts above their share may step at the same moment (another Host's arrival wakes them
      // all) and read the same view: each tops up only its part, so together they keep `waiting`.
      const mine = Math.ceil(waiting / Math.max(1, above)) - (this.offered.size - handing);
      const topUp = Math.min(count - handed.length, waiting - view.free - offeredNow - handed.length, mine - handed.length);
      const served = kept.filter((shard) => serving(shard));
      if (topUp > 0 && served.length > 0) {
        wanted = true;
        picked = await this.quietest(served, topUp);
      }
    }
    if (!wanted) this.quietWaitSince = undefined;
    if (this.options.pace?.prepare === undefined) return { release: [...handed, ...picked].sort((a, b) => a - b), offer: [] };
    return { release: handed.sort((a, b) => a - b), offer: this.takers(view, picked) };
  }

  /**
   * Each of `shards` with the Host to offer it to: the one furthest below its share, counting what
   * is offered to it already; shards left over when no Host lacks any are not offered.
   */
  private takers(view: ClusterView, shards: readonly number[]): { shard: number; to: string }[] {
    const lacking = new Map(
      view.hosts.map((host, rank) => [
        host,
        hostShare(rank, view.hosts.length) - (view.heldBy.get(host) ?? 0) - (view.offeredTo.get(host) ?? 0),
      ]),
    );
    lacking.delete(this.hostId);
    const offers: { shard: number; to: string }[] = [];
    for (const shard of shards) {
      const [to, lack] = [...lacking].reduce((best, next) => (next[1] > best[1] ? next : best), ['', 0] as [string, number]);
      if (lack <= 0) break;
      offers.push({ shard, to });
      lacking.set(to, lack - 1);
    }
    return offers;
  }

  /**
   * Up to `n` of `served` (highest first) to hand on, those whose next reminder (by the database)
   * is furthest off first — shards without one first, ties in the order given — and only those
   * whose next reminder is at least `quietMs` off: a shard handed on has no owner until the taker
   * has opened it, and a reminder due meanwhile would wait for that. When none has been quiet
   * enough for `graceMs`, the quietest go anyway, so a Host whose every shard stays busy still
   * hands its surplus on.
   */
  private async quietest(served: readonly number[], n: number): Promise<number[]> {
    const due = await this.leases.nextDue(served);
    const wallNow = this.options.pace?.now?.() ?? Date.now();
    const slack = (shard: number): number => (due.get(shard) ?? Number.POSITIVE_INFINITY) - wallNow;
    const ordered = served
      .map((shard, at) => ({ shard, at }))
      .sort((a, b) => slack(b.shard) - slack(a.shard) || a.at - b.at)
      .map(({ shard }) => shard);
    const quiet = ordered.filter((shard) => slack(shard) >= this.quietMs);
    if (quiet.length > 0) {
      this.quietWaitSince = undefined;
      return quiet.slice(0, n);
    }
    const now = this.now();
    this.quietWaitSince ??= now;
    if (now - this.quietWaitSince < this.graceMs) return [];
    this.quietWaitSince = undefined;
    return ordered.slice(0, n);
  }

  /** Awaits the release hooks of `surplus` (renewing meanwhile), then frees the leases still held. */
  private async giveBack(surplus: readonly number[]): Promise<number[]> {
    await this.hooks(surplus);
    return this.exclusive(async () => {
      for (const shard of surplus) {
        if (this.mine.delete(shard)) this.unfreed.add(shard);
      }
      return this.freeUnfreed();
    });
  }

  private async hooks(shards: readonly number[]): Promise<void> {
    for (const shard of shards) this.releasing.add(shard);
    const outcomes = await Promise.allSettled(
      shards.map(async (shard) => {
        try {
          await this.options.release(shard);
        } catch (error) {
          throw new ScheduleError(
            'internal_error',
            `The release hook of shard ${shard} failed (${reasonOf(error)}); its lease is freed anyway.`,
            {
              cause: error,
            },
          );
        }
      }),
    );
    for (const shard of shards) this.releasing.delete(shard);
    for (const outcome of outcomes) if (outcome.status === 'rejected') this.report(outcome.reason);
  }

  private async freeUnfreed(): Promise<number[]> {
    if (this.unfreed.size === 0) return [];
    const freed = await this.leases.release(this.hostId, [...this.unfreed]);
    this.unfreed.clear();
    return freed;
  }

  /**
   * Renews every lease this Host owns. One it holds that did not come back is lost; one that came
   * back unknown (held before a restart, or counted lost while unconfirmed) is taken when `adopt`.
   */
  private async renew(sinks: Sinks, adopt: boolean): Promise<void> {
    const sentAt = this.now();
    const renewed = await this.leases.renew(this.hostId, this.leaseMs);
    const back = new Set<number>();
    for (const lease of renewed) {
      if (this.unfreed.has(lease.shard)) continue;
      back.add(lease.shard);
      const held = this.mine.get(lease.shard);
      if (held !== undefined && held.lease.epoch === lease.epoch) {
        held.lease = lease;
        held.deadline = sentAt + this.leaseMs;
      } else if (held !== undefined || adopt) {
        // A shard this Host was taking by hand-over: its owner moved the lease here.
        const handed = this.preparing.delete(lease.shard) && held === undefined;
        this.take(handed ? { ...lease, from: 'handed' } : lease, sentAt, sinks);
      }
    }
    for (const shard of [...this.mine.keys()]) if (!back.has(shard)) this.lose(shard, sinks);
  }

  private take(lease: ShardLease, sentAt: number, sinks: Sinks): void {
    if (this.mine.has(lease.shard)) this.lose(lease.shard, sinks);
    // A shard taken over is kept for the grace (its overdue reminders go out here first). So is one
    // released to this Host, unless shards move by hand-over: then the next taker reads it while
    // this Host serves it, and moving it on throws nothing away.
    const moved = lease.from === 'released' || lease.from === 'handed';
    const graced = lease.from === 'expired' || (moved && this.options.pace?.prepare === undefined);
    this.mine.set(lease.shard, { lease, deadline: sentAt + this.leaseMs, keepUntil: graced ? sentAt + this.graceMs : 0 });
    sinks.acquired.push(lease.shard);
    this.notify(() => this.options.onAcquired(lease));
  }

  private lose(shard: number, sinks: Sinks): void {
    this.mine.delete(shard);
    sinks.lost.push(shard);
    this.notify(() => this.options.onLost(shard));
  }

  private expireOverdue(sinks: Sinks): void {
    const now = this.now();
    for (const [shard, held] of [...this.mine]) if (now >= held.deadline) this.lose(shard, sinks);
  }

  private notify(hook: () => unknown): void {
    try {
      const answer = hook();
      if (answer instanceof Promise) answer.catch((error: unknown) => this.report(error));
    } catch (error) {
      this.report(error);
    }
  }

  private report(error: unknown): void {
    try {
      this.options.onError?.(error);
    } catch {
      // A failing error listener must not stop the keeper.
    }
  }

  /** One tick of the loop: a step, or (while a step or a stop is still running) a renewal only. */
  private tick(): void {
    this.tickHandle = undefined;
    this.tickAt = Number.POSITIVE_INFINITY;
    if (this.phase === 'idle') return;
    this.schedule();
    if (this.phase === 'running' && this.stepping === undefined) {
      void this.step();
      return;
    }
    this.renewing ??= this.exclusive(async () => {
      if (this.leaving) return;
      const sinks: Sinks = { acquired: [], lost: [] };
      try {
        await this.members.heartbeat(this.hostId, this.leaseMs);
        await this.renew(sinks, this.phase === 'running');
      } catch (error) {
        this.expireOverdue(sinks);
        this.report(error);
      }
      this.watch();
    }).finally(() => {
      this.renewing = undefined;
    });
  }

  private schedule(): void {
    this.setTick(Math.max(1, Math.floor(this.leaseMs / 3)));
  }

  /** Brings the next tick forward to `at` (keeper clock) while the loop runs, if it is due later. */
  private tickBy(at: number): void {
    if (this.phase !== 'running' || at >= this.tickAt) return;
    this.setTick(Math.max(1, Math.ceil(at - this.now())));
  }

  private setTick(ms: number): void {
    this.clearTimer('tickHandle');
    this.tickAt = this.now() + ms;
    this.tickHandle = this.timers.setTimeout(() => this.tick(), ms);
  }

  /** While the loop runs, a timer at the earliest lease deadline reports the overdue leases lost. */
  private watch(): void {
    this.clearTimer('watchHandle');
    if (this.phase === 'idle' || this.mine.size === 0) return;
    const first = Math.min(...[...this.mine.values()].map((h) => h.deadline));
    this.watchHandle = this.timers.setTimeout(
      () => {
        this.watchHandle = undefined;
        this.expireOverdue({ acquired: [], lost: [] });
        this.watch();
      },
      Math.max(0, Math.ceil(first - this.now())),
    );
  }

  private clearTimer(which: 'tickHandle' | 'watchHandle'): void {
    if (this[which] === undefined) return;
    this.timers.clearTimeout(this[which]);
    this[which] = undefined;
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = this.lock.then(work);
    this.lock = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}

/**
 * Keeps this Host's fair share of the shards of a PostgreSQL schema:
 * `shardKeeper({ pool, hostId, onAcquired, onLost, release })`, then `start()` and, on shutdown,
 * `stop()`. `held()` is the shard → epoch map a fenced storage checks its commits against.
 *
 * @throws ScheduleError `internal_error` for a missing pool or hook, a bad host id or lease.
 */
export const shardKeeper = (options: ShardKeeperOptions): ShardKeeper => new ShardKeeper(options);

// The ports through which the scheduler touches the world (docs/api.md, docs/delivery.md): the Host's Sessions,
// the clock and its timers, durable storage of the JSON domain, a logger and the metrics
// (docs/operations.md). Adapters in src/adapters/ implement the clock and storage; the Host
// implements the Session controller and, if it keeps metrics, the metrics port.
import type { ReplyValue, ScheduleCall } from '../machines/replies.ts';
import type { ScheduleConfig, ScheduleInspectionEvent } from './domain/serviceOptions.ts';
import type { CallRef, RememberedCall } from './domain/tasks/rememberedCalls.ts';
import type { FailureStage, TaskRow } from './domain/tasks/types.ts';

/** A message the scheduler appends to a Session: a user-role follow-up produced by `schedule`. */
export interface FollowupMessage {
  readonly role: 'user';
  readonly producer: 'schedule';
  readonly text: string;
}

/**
 * The shard lease a cluster Host appends a message under (`createClusterService`): the Host, the
 * shard of the Session and the epoch of the Host's term on it. Sessions kept in the cluster's
 * database fence their write with it, as a commit is fenced (`checkFence`).
 */
export interface FollowupLease {
  readonly hostId: string;
  readonly shard: number;
  readonly epoch: number;
}

/** What the scheduler tells the Session about a message, so a Host can drop a redelivery. */
export interface FollowupMeta {
  /** One `<taskId>@<occurrence scheduledAt>` per reminder in the message. */
  readonly idempotencyKeys: string[];
  /**
   * Set by a cluster Host only: the lease the message is appended under. A Session that persists
   * in the cluster's database writes the message only while that lease is the Host's at its epoch;
   * any other Session may ignore it.
   */
  readonly lease?: FollowupLease;
}

/** A live Agent of one Session, as the Host exposes it to the scheduler. */
export interface ScheduleAgent {
  /**
   * Appends a message to the Session's inbox synchronously; may throw. Never interrupts a turn.
   * The message id (a non-empty string of at most 256 characters) is kept in the receipt.
   */
  followup(message: FollowupMessage, meta?: FollowupMeta): { messageId: string };
  /** Resolves once the Session has durably persisted its inbox. */
  flush(): Promise<void>;
}

/** The Host adapter: finds (and, if cold, restores) the Agent of a Session. */
export interface SessionController {
  resolveAgent(sessionId: string): Promise<ScheduleAgent>;
}

/** Wall clock and timers (docs/delivery.md). `now()` is the wall clock in epoch ms. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/**
 * Where warnings and errors go. `info` and `debug` are optional: a logger with them also hears
 * routine events (a delivery committed, with its Session, task, occurrence and message).
 */
export interface Logger {
  warn(msg: string, data?: unknown): void;
  error(msg: string, data?: unknown): void;
  info?(msg: string, data?: unknown): void;
  debug?(msg: string, data?: unknown): void;
}

/** The whole stored domain, as decoded at open. */
export interface StoredDomain {
  readonly tasks: readonly TaskRow[];
  /** The next task number to hand out; ids are never reused, even after deletion. */
  readonly nextTaskNumber: number;
  /** The time-zone data version the domain records (absent when it never recorded one). */
  readonly tzdata?: string;
  /** Remembered calls of idempotent requests (SPEC §15), oldest first; absent when there are none. */
  readonly calls?: readonly RememberedCall[];
  /**
   * Present when `tasks` is only part of the domain (the open was asked for the rows due soon and
   * the storage can answer queries): the rest stays stored and is read on demand.
   */
  readonly rest?: StoredRest;
}

/** What an open is asked for (`ScheduleStorage.open`); a storage may read more. */
export interface OpenRequest {
  /**
   * Read the active rows due before this instant (epoch ms) and leave the rest stored, to be read
   * through `StoredDomain.rest`. A storage that cannot answer queries reads every row (and then
   * has no `rest`).
   */
  readonly dueBefore?: number;
}

/**
 * The rows an open left in storage. Each read answers the rows as stored now, checked as strictly
 * as an open checks them (a row that does not decode rejects with `corrupt_schedule_log`); a read
 * the database could not answer rejects with `persistence_uncertain`.
 */
export interface StoredRest {
  /** Every active row due before this instant (epoch ms) was read at open. */
  readonly readUntil: number;
  /** Every row, active or not, of these Sessions. */
  sessions(sessionIds: readonly string[]): Promise<readonly TaskRow[]>;
  /** The active rows due at or after `from` and before `until` (epoch ms). */
  due(from: number, until: number): Promise<readonly TaskRow[]>;
  /** Every row. */
  all(): Promise<readonly TaskRow[]>;
  /**
   * How many stored rows lie outside `held` (what the service holds in memory), by what the
   * counts per state need: every such row, the inactive ones, the active paused ones and the
   * active failing ones. Optional: without it, counts read every row.
   */
  unreadCounts?(held: HeldRows): Promise<UnreadCounts>;
}

/** The rows a service holds in memory, as a storage can tell them apart. */
export interface HeldRows {
  /** Every active row due before this instant (epoch ms). */
  readonly dueBefore: number;
  /** Every row of these Sessions. */
  readonly sessions: readonly string[];
  /** And these rows. */
  readonly ids: readonly string[];
}

/** Counts of rows left in storage (`StoredRest.unreadCounts`). */
export interface UnreadCounts {
  readonly total: number;
  readonly ended: number;
  readonly paused: number;
  readonly failing: number;
}

/** One atomic change to the domain: rows to write (by record id) and ids to remove. */
export interface CommitBatch {
  readonly puts: readonly TaskRow[];
  readonly deletes: readonly string[];
  /** When present, the new id counter (it only grows). */
  readonly nextTaskNumber?: number;
  /** When present, the time-zone data version to record in the domain. */
  readonly tzdata?: string;
  /** Calls to remember (a call that succeeded with a `callId`), durable with the rows in the same commit. */
  readonly calls?: readonly RememberedCall[];
  /** Remembered calls to forget (past their retention); applied before `calls`. */
  readonly forgetCalls?: readonly CallRef[];
}

/**
 * Durable storage of the JSON domain. `open` decodes strictly (rejecting with
 * `corrupt_schedule_log`) every row, or, asked for the rows due soon by a storage that answers
 * queries, those and a `rest` to read the others from; `commit` resolves only once the batch is
 * durable and rejects when it is not (never reported as success); `close` makes `schedule.json`
 * hold the whole domain.
 */
export interface ScheduleStorage {
  open(request?: OpenRequest): Promise<StoredDomain>;
  commit(batch: CommitBatch): Promise<void>;
  close(): Promise<void>;
  /**
   * When present, new task ids come from storage: `count` fresh task numbers, unique across every
   * process that shares the storage and never handed out again (the PostgreSQL storage takes them
   * from a database sequence). Without it, ids come from the domain's own counter.
   */
  allocateTaskNumbers?(count: number): Promise<readonly number[]>;
  /**
   * Present on a storage many Hosts share (`postgresStorage({ …, cluster })`): such a storage is
   * joined, not opened — `createScheduleService` and `scheduleSupervisor` run this Host as one
   * member of the cluster through it, with the same calls and options as over a storage of one.
   */
  readonly cluster?: ClusterMembership;
}

/** The Host's ports a cluster member runs its shards with. */
export interface MemberPorts {
  readonly sessions: SessionController;
  readonly clock?: Clock;
  readonly logger?: Logger;
  readonly config?: ScheduleConfig;
  readonly metrics?: ScheduleMetrics;
  /**
   * Receives the XState inspection events of every shard this Host opens, each actor seen under
   * its shard (`s12/…`), so one inspector holds the trees of every shard held.
   */
  readonly inspect?: (event: ScheduleInspectionEvent) => void;
}

/** How a Host joins the cluster a shared storage belongs to. */
export interface ClusterMembership {
  /** This Host, unique among the running processes. */
  readonly hostId: string;
  /** Joins: takes this Host's share of the shards and answers calls for any Session. */
  join(ports: MemberPorts): Promise<JoinedCluster>;
}

/** One live Host of the cluster, as `cluster_hosts` has it. */
export interface ClusterMember {
  readonly hostId: string;
  /** When its current membership began (canonical UTC). */
  readonly startedAt: string;
  /** When its membership lapses unless it heartbeats again. */
  readonly expiresAt: string;
}

/** One shard's lease, as `shard_leases` has it. */
export interface ShardOwnership {
  readonly shard: number;
  /** The Host holding the lease, or null while it is free or expired. */
  readonly owner: string | null;
  readonly epoch: number;
  /** When the lease lapses (null for a shard never leased). */
  readonly expiresAt: string | null;
}

/** Who holds what, read in one statement. */
export interface ClusterTopology {
  /** The database's clock when it was read. */
  readonly now: string;
  /** The live Hosts, oldest membership first. */
  readonly hosts: ClusterMember[];
  /** The 256 shards in order; `owner` is null for a shard whose lease is free or expired. */
  readonly shards: ShardOwnership[];
}

/** What one step of the shard keeper did (`JoinedCluster.step`). */
export interface StepReport {
  /** Live Hosts the heartbeat saw (0 when it failed). */
  readonly liveHosts: number;
  /** The shards this Host should hold (0 when the heartbeat failed). */
  readonly share: number;
  readonly acquired: readonly number[];
  readonly released: readonly number[];
  readonly lost: readonly number[];
  /** The failure that ended the step early, if one did. */
  readonly error?: unknown;
}

/** One Host's part of a cluster, once joined. */
export interface JoinedCluster {
  readonly hostId: string;
  /** Runs one call for any Session (a call for another Host's Session is answered by that Host). */
  run(call: ScheduleCall): Promise<ReplyValue>;
  /** Every change committed at any Host of the cluster. */
  subscribe(listener: (change: { readonly sessionId: string; readonly ids: readonly string[] }) => void): () => void;
  /** The shards this Host holds, with their epochs. */
  held(): ReadonlyMap<number, number>;
  /** The live Hosts and every shard's owner, epoch and expiry, read from the database. */
  topology(): Promise<ClusterTopology>;
  /** The Host that holds a Session's shard, as this Host last read it (undefined while no Host holds it). */
  ownerOf(sessionId: string): Promise<string | undefined>;
  /** One step of the lease keeper (a Host that joined with `autoStart: false` runs them itself). */
  step(): Promise<StepReport>;
  health(): ScheduleHealth;
  whenIdle(): Promise<void>;
  /** Hands every shard back and leaves the cluster. */
  close(): Promise<void>;
}

/**
 * Levels of one running scheduler, read when the Host asks (a scrape), never pushed: reading
 * them walks the Session actors, so nothing is counted on the delivery path.
 */
export interface ScheduleLevels {
  /** Commands in the supervisor's mailbox: the one running and those waiting behind it. */
  readonly mailboxDepth: number;
  /** Sessions with work in memory: a Session actor (active tasks due within the passivation horizon, or an attempt in flight). */
  readonly openSessions: number;
}

/**
 * What a running service answers `health()` with (docs/operations.md): what a readiness probe
 * needs, read from memory without touching the storage.
 */
export interface ScheduleHealth {
  /** The storage is open: the domain was read and the service has not begun to close. */
  readonly open: boolean;
  /**
   * A cluster Host only: the shards it holds and how many of those leases are live by its own
   * clock (a lease that may have run out while the Host stalled is not).
   */
  readonly shards?: { readonly held: number; readonly live: number };
}

/**
 * Where the scheduler reports counters and timings (docs/operations.md). Every member is
 * optional: `{}` reports nothing, which is the default. Calls are made on the scheduler's own
 * path, so they must be cheap and must not block; one that throws is caught (the first throw is
 * logged) and never affects a delivery. A cluster Host's shard services all report to the same
 * port, so levels are summed over every `observe` registration that is still open.
 */
export interface ScheduleMetrics {
  /** One reminder's delivery was committed, `latenessSeconds` after its target (its receipt's `deliveredAt` − occurrence). */
  delivered?(latenessSeconds: number): void;
  /** One delivery attempt of a Session failed at `stage`; `reminders` reminders stay undelivered (retried or parked). */
  attemptFailed?(stage: FailureStage, reminders: number): void;
  /** One storage write (`ScheduleStorage.commit`) took `seconds`; `ok` is false when it was refused or failed. */
  storageCommitted?(seconds: number, ok: boolean): void;
  /** A cluster Host now holds `count` shards. */
  shardsHeld?(count: number): void;
  /**
   * A scheduler opened: `read` answers its levels from now on. The returned function is called
   * when it stops, after which `read` is not to be called again.
   */
  observe?(read: () => ScheduleLevels): () => void;
}

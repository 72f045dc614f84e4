// One multi-process fault trial of the PostgreSQL cluster. A fresh schema (`cluster_trial_<random>`)
// gets 500 Sessions' transcript tables, 5 000 seeded tasks of every kind and the harness's audit
// triggers (clusterAudit.ts); three Host processes (clusterChild.ts) join it on one accelerated
// clock and settle to 86/85/85 shards; then calls (creates, updates, deletes) go to random Hosts
// while reminders fall due, and one fault, chosen by the seeded plan, strikes: SIGKILL of a Host at
// a random moment, inside a Session flush or between a flush and its commit (a replacement Host
// then joins); SIGSTOP of a Host for longer than its lease, then SIGCONT; a fourth Host joining;
// a Host's database connection cut for a few seconds (its pool runs through a loopback proxy); or
// churn — a SIGKILL and a new Host joining within the same lease, or a SIGSTOP past the lease while
// another Host joins — where the survivors take shards over while they hand others to the newcomer.
// Once the calls are answered and the cluster settled, the checks (clusterChecks.ts) read the
// schema: the calls' effects, every reminder due before the fault or within a lease after it
// delivered within the lease and one wait after the fault (for churn: each reminder due at or
// after the fault, for three leases, delivered within `leaseMs` + 2 s of the later of its due time
// and the fault at the 99th percentile over the run, none later than 2 × `leaseMs` + 2 s), nothing overdue once settled (but for a
// failed delivery waiting for its retry), no commit outside the lease it names, no reminder twice
// in a transcript, redeliveries only where the flush→commit window was cut, and the shards
// balanced over the live Hosts. A passing trial drops its schema; a failing one keeps it and names
// it in the error.

import type pg from 'pg';
import { createTranscriptTables } from '../../../host/sessions/postgresTranscripts.ts';
import type { SqlPool } from '../../../src/adapters/postgres/driver.ts';
import { type AcceleratedClockAnchor, realNow, simulatedAt } from '../../reliability/acceleratedClock.ts';
import { random } from '../../storage/crashTrial.ts';
import { run } from '../../storage/postgresHarness.ts';
import { type LoopbackProxy, startProxy } from '../../storage/postgresProxy.ts';
import { checkAudit, installAudit } from './clusterAudit.ts';
import {
  checkBalance,
  checkDue,
  checkEffects,
  checkRedeliveries,
  readDeliveryAudit,
  readDue,
  readDueBetween,
  readTasks,
  readTranscriptFacts,
} from './clusterChecks.ts';
import { ClusterHostProcess } from './clusterProcess.ts';
import { nextRunOp, type RunOp, seedTasks } from './clusterWorkload.ts';

/** The faults, one per trial. */
export const FAULTS = ['kill', 'kill-in-flush', 'kill-after-flush', 'stop', 'join', 'cut', 'kill-join', 'stop-join'] as const;
export type FaultKind = (typeof FAULTS)[number];

/** The churn faults, checked by the lateness bound of each reminder due at or after the fault. */
export const CHURN_FAULTS: readonly FaultKind[] = ['kill-join', 'stop-join'];

/**
 * A Host's lease, real ms (`CLUSTER_TRIAL_LEASE_MS` overrides): long enough that three Hosts
 * opening their shards over 5 000 tasks on two shared cores renew in time.
 */
export const LEASE_MS = Number(process.env.CLUSTER_TRIAL_LEASE_MS ?? 8000);
/**
 * "One wait" after the lease, for a reminder due at a fault: the survivors' step once the leases
 * run out, the opening of the shards they take (restoring their tasks, on a loaded machine) and
 * the reminder's timer — one more lease, at least 5 s.
 */
export const ONE_WAIT_MS = Math.max(5000, LEASE_MS);
/** The churn trials' bound at the 99th percentile of lateness over a run (lateness: from the later of a reminder's due time and the fault to its delivery). */
export const LATENESS_P99_BOUND_MS = LEASE_MS + 2000;
/** The churn trials' bound on any one reminder's lateness. */
export const LATENESS_MAX_BOUND_MS = 2 * LEASE_MS + 2000;
/** How long after a churn fault the reminders falling due are owed by the lateness bound. */
const CHURN_WINDOW_MS = 3 * LEASE_MS;
/** Simulated ms per real ms: a real second is two simulated minutes. */
const FACTOR = 120;
const SIM_START = Date.parse('2030-03-04T08:00:00.000Z');
const SESSIONS = 500;
const TASKS = 5000;
/** The calls' phase, real ms (longer when the fault lasts past it). */
const RUN_MS = 9000;
const OP_EVERY_MS = 40;
const ROUTE_TIMEOUT_MS = 6000;
/** How long the Hosts may take to settle their shares, before the run and after it: a joining Host takes its share as fast as it opens shards, which on a loaded machine takes a while. */
const SETTLE_TIMEOUT_MS = 120_000;
/** Tasks due more than ten simulated minutes (five real seconds) ahead are kept as rows without an actor. */
const PASSIVATION_MS = 10 * 60_000;

/** One trial's figures (one JSON line). */
export interface TrialFigures {
  trial: number;
  seed: number;
  fault: FaultKind;
  /** How the kill landed (inside a flush, between flush and commit, or the fallback moment). */
  faultDetail: string;
  calls: number;
  callsAcknowledged: number;
  callsRefused: number;
  callsUncertain: number;
  uncertainLanded: number;
  remindersDelivered: number;
  dueAtFault: number;
  /** Reminders falling due within a lease after the fault (owed by the same bound). */
  dueWithinLease: number;
  worstDelayMs: number;
  medianDelayMs: number;
  /** Each owed reminder's lateness, real ms from the later of its due time and the fault to its delivery (not printed per trial). */
  latenessMs: number[];
  /** The 99th percentile and the most of `latenessMs`. */
  latenessP99Ms: number;
  latenessMaxMs: number;
  /** Until every shard the faulted Host held had a new owner (or the joining Host its share); null when none moved. */
  takeoverMs: number | null;
  /** Until the joining Host held 63 shards (a quarter, less one), from the fault; null without a joiner. */
  joinerShareMs: number | null;
  redeliveries: number;
  duplicatesDropped: number;
  shardsPerHost: number[];
  commitsAudited: number;
  ownershipChanges: number;
  /** Of those, the hand-overs (see clusterAudit.ts). */
  handOvers: number;
  hostErrors: number;
  /** Shards a Host gave up and held again at the same epoch. */
  retakenAtSameEpoch: number;
  /** The most queries one Host's pool had waiting for a connection. */
  maxPoolWaiting: number;
  /** Tasks still overdue once settled whose owner waits for the retry of a failed delivery, each with its failure. */
  waitingForRetry: string[];
  /** The longest event-loop stall a Host reported, ms. */
  maxStallMs: number;
  seconds: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `done` every 200 ms until it answers true or `ms` passed. */
async function until(ms: number, done: () => Promise<boolean>): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (await done()) return true;
    if (Date.now() > end) return false;
    await sleep(200);
  }
}

/** The `p`-th percentile (0–100, nearest rank) of `values`; 0 for none. */
export const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : (sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0);
};

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : (sorted[Math.floor((sorted.length - 1) / 2)] ?? 0);
};

/** Thrown by a failed trial; its schema is kept. */
export class TrialFailure extends Error {
  constructor(
    message: string,
    readonly fault?: FaultKind,
    readonly schema?: string,
    /** What the checks found wrong (empty when the trial broke before its checks). */
    readonly problems: readonly string[] = [],
    readonly figures?: TrialFigures,
  ) {
    super(message);
    this.name = 'TrialFailure';
  }
}

/** Runs trial `trial` of a run seeded `seed` against the database at `url` (`admin` is a pool on it). */
export async function runClusterTrial(options: {
  trial: number;
  seed: number;
  url: string;
  admin: pg.Pool;
  /** The fault to use instead of the plan's. */
  fault?: FaultKind;
}): Promise<TrialFigures> {
  const started = Date.now();
  const { trial, url } = options;
  const admin = options.admin as unknown as SqlPool;
  const seed = options.seed + trial;
  const rand = random(seed);
  const fault: FaultKind = options.fault ?? FAULTS[(options.seed + trial) % FAULTS.length] ?? 'kill';
  const schema = `cluster_trial_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const hosts: ClusterHostProcess[] = [];
  let proxy: LoopbackProxy | undefined;
  let failed = false;
  try {
    await createTranscriptTables(admin, schema);
    const seeded = await seedTasks(admin, schema, { sessions: SESSIONS, tasks: TASKS, simStart: SIM_START, rand });
    await installAudit(admin, schema);

    const victimIndex = Math.floor(rand() * 3);
    const target = new URL(url);
    if (fault === 'cut') proxy = await startProxy(Number(target.port || 5432), target.hostname);
    const urlFor = (i: number): string => {
      if (proxy === undefined || i !== victimIndex) return url;
      const via = new URL(url);
      via.hostname = '127.0.0.1';
      via.port = String(proxy.port);
      return via.toString();
    };
    const anchor: AcceleratedClockAnchor = { simStart: SIM_START, realStart: realNow(), factor: FACTOR };
    let hostNumber = 0;
    const spawnHost = (i: number): ClusterHostProcess => {
      const host = new ClusterHostProcess({
        url: urlFor(i),
        schema,
        hostId: `h${++hostNumber}-${schema.slice(-6)}`,
        leaseMs: LEASE_MS,
        anchor,
        maxWaitMs: 60_000,
        passivationHorizonMs: PASSIVATION_MS,
        routeTimeoutMs: ROUTE_TIMEOUT_MS,
      });
      hosts.push(host);
      return host;
    };
    const initial = [0, 1, 2].map(spawnHost);
    await Promise.all(initial.map((h) => h.ready));
    const live = () => hosts.filter((h) => !h.killed).map((h) => h.hostId);
    const balanced = async () => (await checkBalance(admin, schema, live())).problems.length === 0;
    if (!(await until(SETTLE_TIMEOUT_MS, balanced))) throw new TrialFailure('the three Hosts never settled their shares');

    // The calls, until the run (and the fault) is over.
    const untouched = [...seeded];
    const ops: Array<{ op: RunOp; answer: unknown }> = [];
    const answers: Promise<void>[] = [];
    let calling = true;
    let n = 0;
    const caller = (async () => {
      while (calling) {
        const candidates = hosts.filter((h) => !h.killed);
        const host = candidates[Math.floor(rand() * candidates.length)];
        if (host !== undefined) {
          const op = nextRunOp(rand, ++n, `${trial}`, untouched, SESSIONS, simulatedAt(anchor, realNow()));
          const entry: { op: RunOp; answer: unknown } = { op, answer: undefined };
          ops.push(entry);
          answers.push(
            host.call(op.call).then((answer) => {
              entry.answer = answer;
            }),
          );
        }
        await sleep(OP_EVERY_MS);
      }
    })();

    // The fault.
    const runStart = Date.now();
    await sleep(2000 + Math.floor(rand() * 3000));
    const victim = initial[victimIndex] as ClusterHostProcess;
    const due = await readDue(admin, schema, simulatedAt(anchor, realNow()));
    // And those falling due within a lease of the fault, while the faulted Host's shards may still
    // be waiting for a new owner: each is owed by the same bound, a lease and one wait after the fault.
    const churn = CHURN_FAULTS.includes(fault);
    const window = churn ? CHURN_WINDOW_MS : LEASE_MS;
    const dueSoon = await readDueBetween(admin, schema, simulatedAt(anchor, realNow()), simulatedAt(anchor, realNow() + window));
    const owed = [...due, ...dueSoon];
    const victimShards = (await run(admin, `select shard from "${schema}".shard_leases where owner = $1`, [victim.hostId])).rows.map((r) =>
      Number(r.shard),
    );
    let faultReal = realNow();
    let faultWall = Date.now();
    let faultDetail: string = fault;
    let joiner: ClusterHostProcess | undefined;
    const mark = () => {
      faultReal = realNow();
      faultWall = Date.now();
    };
    const killAt = async (event: string | null) => {
      if (event === 'holding') victim.holdNextFlush();
      const seen =
        event === null ? true : await Promise.race([victim.next((e) => e.e === event).then(() => true), sleep(3000).then(() => false)]);
      mark();
      faultDetail =
        event === null
          ? 'at a random moment'
          : seen
            ? event === 'holding'
              ? 'between a flush and its commit'
              : 'inside a flush'
            : 'fallback: no flush within 3 s';
      await victim.kill();
      spawnHost(3);
    };
    switch (fault) {
      case 'kill':
        await killAt(null);
        break;
      case 'kill-in-flush':
        await killAt('flushing');
        break;
      case 'kill-after-flush':
        await killAt('holding');
        break;
      case 'stop': {
        const ms = Math.floor(LEASE_MS * (1.5 + rand()));
        faultDetail = `stopped ${ms} ms`;
        mark();
        victim.signal('SIGSTOP');
        await sleep(ms);
        victim.signal('SIGCONT');
        break;
      }
      case 'join':
        mark();
        joiner = spawnHost(3);
        await joiner.ready;
        break;
      case 'kill-join': {
        // The new Host starts while the killed Host's leases still run, so it joins as the survivors take them over.
        const joinAfter = Math.floor(LEASE_MS * (0.25 + 0.5 * rand()));
        faultDetail = `killed, a Host joining ${joinAfter} ms later`;
        mark();
        await victim.kill();
        await sleep(joinAfter);
        joiner = spawnHost(3);
        break;
      }
      case 'stop-join': {
        const ms = Math.floor(LEASE_MS * (1.5 + rand()));
        const joinAfter = Math.floor(LEASE_MS * (0.5 + 0.5 * rand()));
        faultDetail = `stopped ${ms} ms, a Host joining ${joinAfter} ms in`;
        mark();
        victim.signal('SIGSTOP');
        await sleep(joinAfter);
        joiner = spawnHost(3);
        await sleep(ms - joinAfter);
        victim.signal('SIGCONT');
        break;
      }
      case 'cut': {
        const ms = Math.floor(LEASE_MS * (0.5 + rand()));
        faultDetail = `cut ${ms} ms`;
        mark();
        await proxy?.stop();
        await sleep(ms);
        await proxy?.start();
        break;
      }
    }
    await sleep(Math.max(2000, RUN_MS - (Date.now() - runStart)));
    calling = false;
    await caller;
    await Promise.race([Promise.all(answers), sleep(ROUTE_TIMEOUT_MS * 3)]);

    // Settle: the shares balanced, the reminders due at the fault delivered, nothing overdue.
    const touched = new Set(ops.flatMap(({ op }) => (op.id === undefined ? [] : [op.id])));
    await until(SETTLE_TIMEOUT_MS, async () => {
      if (!(await balanced())) return false;
      if (checkDue(owed, await readTranscriptFacts(admin, schema), touched).problems.length > 0) return false;
      return (await readDue(admin, schema, simulatedAt(anchor, realNow() - ONE_WAIT_MS))).length === 0;
    });

    // The checks.
    const problems: string[] = [];
    const rows = await readTasks(admin, schema);
    const effects = checkEffects(rows, seeded, ops);
    problems.push(...effects.problems);
    const facts = await readTranscriptFacts(admin, schema);
    const delivered = checkDue(owed, facts, touched);
    problems.push(...delivered.problems);
    const delays = delivered.deliveredAt.map((at) => Math.max(0, anchor.realStart + (at - SIM_START) / FACTOR - faultReal));
    const worst = Math.max(0, ...delays);
    const realOf = (sim: number): number => anchor.realStart + (sim - SIM_START) / FACTOR;
    const lateness = delivered.delivered.map(({ occurrence, at }) => Math.max(0, realOf(at) - Math.max(realOf(occurrence), faultReal)));
    const latenessMax = Math.max(0, ...lateness);
    if (churn) {
      if (latenessMax > LATENESS_MAX_BOUND_MS)
        problems.push(
          `a reminder due at or after the fault was delivered ${Math.round(latenessMax)} ms late, against ${LATENESS_MAX_BOUND_MS} ms`,
        );
    } else if (worst > LEASE_MS + ONE_WAIT_MS)
      problems.push(`a reminder due at the fault or within a lease of it was delivered ${Math.round(worst)} ms after the fault`);
    // A task overdue once settled is stuck, unless its owner is waiting for the retry of a failed
    // delivery (the backoff is the retry policy's, in simulated time): each is asked for at a live Host.
    const overdue = await readDue(admin, schema, simulatedAt(anchor, realNow() - ONE_WAIT_MS));
    const waiting: string[] = [];
    const stuck: string[] = [];
    for (const task of overdue.slice(0, 20)) {
      const asked = hosts.find((h) => !h.killed && !h.exited);
      const entry = (await asked?.call({ n: ++n, sessionId: task.sessionId, name: 'remote.get', args: { id: task.id } })) as
        | { failure?: { nextRetryAt?: string; attempts: number; stage: string; message: string } }
        | undefined;
      const failure = entry?.failure;
      const said = `${task.id} (${task.kind}, due ${new Date(task.occurrence).toISOString()}): ${failure === undefined ? 'no failure' : JSON.stringify(failure)}`;
      const retryAt = failure?.nextRetryAt === undefined ? Number.NaN : Date.parse(failure.nextRetryAt);
      if (retryAt > simulatedAt(anchor, realNow() - ONE_WAIT_MS)) waiting.push(said);
      else stuck.push(said);
    }
    if (stuck.length > 0 || overdue.length > 20)
      problems.push(
        `${overdue.length} tasks are overdue by more than ${ONE_WAIT_MS} ms once settled, ${stuck.length} of the first 20 with no retry pending: ${stuck.slice(0, 3).join('; ')}`,
      );
    problems.push(...facts.twice.map((key) => `a transcript holds ${key} twice`));
    const followups = hosts.flatMap((h) => h.followups);
    const again = checkRedeliveries(
      followups,
      facts,
      await readDeliveryAudit(admin, schema),
      new Map(hosts.map((h) => [h.hostId, h.retaken] as const)),
      LEASE_MS,
    );
    problems.push(...again.problems);
    const audit = await checkAudit(admin, schema);
    problems.push(...audit.problems);
    const balance = await checkBalance(admin, schema, live());
    problems.push(...balance.problems);
    for (const host of hosts)
      if (host.exited && !host.killed) problems.push(`${host.hostId} exited on its own: ${host.stderrTail.slice(-1500)}`);

    // Takeover: until every shard of the faulted Host had a new owner, or the joining Host its share.
    let takeoverMs: number | null = null;
    let joinerShareMs: number | null = null;
    if (joiner !== undefined) {
      const reached = await run(
        admin,
        `select at from "${schema}".audit_leases where owner = $1 and at >= $2 order by at offset $3 limit 1`,
        [joiner.hostId, new Date(faultWall), Math.floor(256 / 4) - 1],
      );
      if (reached.rows[0] !== undefined) joinerShareMs = new Date(reached.rows[0].at as Date).getTime() - faultWall;
      if (!churn) takeoverMs = joinerShareMs;
    }
    if ((joiner === undefined || churn) && victimShards.length > 0) {
      const moved = await run(
        admin,
        `select max(first_at) as last, count(*)::int as n from (
           select shard, min(at) as first_at from "${schema}".audit_leases
           where shard = any($1::smallint[]) and at >= $2 and owner is not null and owner <> $3 group by shard) s`,
        [victimShards, new Date(faultWall), victim.hostId],
      );
      const last = moved.rows[0]?.last;
      if (last !== null && last !== undefined) takeoverMs = new Date(last as Date).getTime() - faultWall;
      if (
        (fault === 'kill' || fault === 'kill-in-flush' || fault === 'kill-after-flush' || fault === 'kill-join') &&
        Number(moved.rows[0]?.n) !== victimShards.length
      )
        problems.push(`only ${moved.rows[0]?.n} of the ${victimShards.length} shards of the killed Host were taken over`);
    }

    const figures: TrialFigures = {
      trial,
      seed: options.seed,
      fault,
      faultDetail,
      calls: ops.length,
      callsAcknowledged: effects.acknowledged,
      callsRefused: effects.refused,
      callsUncertain: effects.uncertain,
      uncertainLanded: effects.uncertainLanded,
      remindersDelivered: facts.keys,
      dueAtFault: due.filter((task) => !touched.has(task.id)).length,
      dueWithinLease: dueSoon.filter((task) => !touched.has(task.id)).length,
      worstDelayMs: Math.round(worst),
      medianDelayMs: Math.round(median(delays)),
      latenessMs: lateness.map(Math.round),
      latenessP99Ms: Math.round(percentile(lateness, 99)),
      latenessMaxMs: Math.round(latenessMax),
      takeoverMs,
      joinerShareMs,
      redeliveries: again.redeliveries,
      duplicatesDropped: again.dropped,
      shardsPerHost: Object.values(balance.perHost),
      commitsAudited: audit.commits,
      ownershipChanges: audit.ownershipChanges,
      handOvers: audit.handOvers,
      hostErrors: hosts.reduce((sum, h) => sum + h.errors.length, 0),
      maxStallMs: Math.max(0, ...hosts.map((h) => h.maxStallMs)),
      retakenAtSameEpoch: hosts.reduce((sum, h) => sum + h.retaken.length, 0),
      maxPoolWaiting: Math.max(0, ...hosts.map((h) => h.maxWaiting)),
      waitingForRetry: waiting,
      seconds: Math.round((Date.now() - started) / 100) / 10,
    };
    if (problems.length > 0) {
      const errors = hosts.flatMap((h) => h.errors.slice(0, 3).map((e) => `${h.hostId}: ${e.slice(0, 300)}`));
      throw new TrialFailure(
        `cluster trial ${trial} (seed ${options.seed}, ${fault}: ${faultDetail}) failed; schema ${schema} kept:\n  ${problems.slice(0, 12).join('\n  ')}\n  figures: ${JSON.stringify(figures)}\n  host errors: ${errors.join('\n    ')}`,
        fault,
        schema,
        problems,
        figures,
      );
    }
    return figures;
  } catch (error) {
    failed = true;
    if (error instanceof TrialFailure && error.message.startsWith('cluster trial')) throw error;
    const report = hosts.map(
      (h) =>
        `${h.hostId} held ${h.held}, stalled up to ${h.maxStallMs} ms, up to ${h.maxWaiting} queries waiting for a connection, errors ${JSON.stringify(h.errors.slice(0, 3))}, warnings ${JSON.stringify([...h.warnings])}`,
    );
    throw new TrialFailure(
      `cluster trial ${trial} (seed ${options.seed}, ${fault}) broke; schema ${schema} kept: ${String((error as Error).stack ?? error)}\n  ${report.join('\n  ')}`,
      fault,
      schema,
    );
  } finally {
    await Promise.all(hosts.map((h) => h.kill()));
    await proxy?.stop();
    if (!failed) await run(admin, `drop schema if exists "${schema}" cascade`);
  }
}

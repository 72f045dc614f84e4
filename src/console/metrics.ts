// Prometheus metrics for a Host (docs/operations.md): the library's `ScheduleMetrics` port
// implemented with prom-client (an optional peer dependency: only this module loads it, and the
// console's entry loads this module only when a Host asks for metrics), and the exposition the
// console's `GET /metrics` serves. Counters and histograms
// are fed as the scheduler reports; the levels (mailbox depth, open Sessions) and the tasks per
// state are read at scrape time, so the delivery path only bumps a counter. Each stack has its own
// registry (tests run several Hosts in one process); the process metrics (`process_*`, `nodejs_*`)
// are collected once per process, in a registry of their own, and served beside them.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { FailureStage, ScheduleLevels, ScheduleMetrics, StateCounts } from '../index.ts';
import type { ConsoleMetricsSource } from './options.ts';

/** Where the task states shown come from (the service's `remote.counts()`), or undefined when it cannot answer. */
export type CountsSource = () => Promise<StateCounts | undefined>;

/** A Host's metrics: the port the service reports to, and the Prometheus text of everything. */
export interface ConsoleMetrics extends ConsoleMetricsSource {
  readonly port: ScheduleMetrics;
  /** The media type of {@link ConsoleMetrics.exposition}'s text (Prometheus text format 0.0.4). */
  readonly contentType: string;
  /** The Prometheus text exposition: this Host's families, then the process's. */
  exposition(): Promise<string>;
}

/** The states `agent_schedule_tasks` has a series for (`failing` overlaps the active ones). */
const TASK_STATES = ['scheduled', 'overdue', 'paused', 'failing', 'ended'] as const;
const STAGES: readonly FailureStage[] = ['resolve', 'followup', 'flush', 'commit'];

/** From on time to a day late: a catch-up after downtime lands in the top buckets. */
const LATENESS_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600, 21_600, 86_400];
/** A JSON file's fsync to a slow database round trip. */
const COMMIT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * prom-client's gauges named `_total`, which Prometheus's linter rejects (only counters end so);
 * each is the sum of the `type`-labelled gauge kept beside it (`sum(nodejs_active_handles)`).
 */
const MISNAMED_DEFAULTS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

let processRegistry: Registry | undefined;

/** The registry of the process's own metrics, made on first use (its collectors live as long as the process). */
function processMetrics(): Registry {
  if (processRegistry === undefined) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
    for (const name of MISNAMED_DEFAULTS) processRegistry.removeSingleMetric(name);
  }
  return processRegistry;
}

/** Makes the metrics of one Host; `counts` is read at each scrape (no task series without it). */
export function prometheusMetrics(counts: CountsSource = async () => undefined): ConsoleMetrics {
  const registry = new Registry();
  const readers = new Set<() => ScheduleLevels>();
  const sumLevels = (key: keyof ScheduleLevels): number => {
    let sum = 0;
    for (const read of readers) sum += read()[key];
    return sum;
  };

  const deliveries = new Counter({
    name: 'agent_schedule_deliveries_total',
    help: 'Reminders by the outcome of their delivery attempt: delivered (its receipt committed) or failed (the attempt failed; the reminder is retried or parked).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const delivered = deliveries.labels('delivered');
  const failed = deliveries.labels('failed');
  const lateness = new Histogram({
    name: 'agent_schedule_delivery_lateness_seconds',
    help: "Seconds from a delivered reminder's target (its occurrence) to its delivery, observed when the receipt is committed.",
    buckets: LATENESS_BUCKETS,
    registers: [registry],
  });
  const failedAttempts = new Counter({
    name: 'agent_schedule_failed_attempts_total',
    help: 'Failed delivery attempts of a Session, by the stage that failed: resolve, followup, flush or commit.',
    labelNames: ['stage'],
    registers: [registry],
  });
  const byStage = new Map(STAGES.map((stage) => [stage, failedAttempts.labels(stage)]));
  const commits = new Histogram({
    name: 'agent_schedule_storage_commit_seconds',
    help: 'Seconds one storage write (a batch of changes or delivery receipts) took, by outcome: ok or failed.',
    labelNames: ['outcome'],
    buckets: COMMIT_BUCKETS,
    registers: [registry],
  });
  const commitOk = commits.labels('ok');
  const commitFailed = commits.labels('failed');
  new Gauge({
    name: 'agent_schedule_mailbox_depth',
    help: "Commands in the scheduler's mailbox (the one running and those waiting), summed over this Host's schedulers.",
    registers: [registry],
    collect() {
      this.set(sumLevels('mailboxDepth'));
    },
  });
  new Gauge({
    name: 'agent_schedule_open_sessions',
    help: 'Sessions with work in memory (active tasks due within the passivation horizon, or an attempt in flight).',
    registers: [registry],
    collect() {
      this.set(sumLevels('openSessions'));
    },
  });
  const shards = new Gauge({
    name: 'agent_schedule_shards_held',
    help: 'Shards of the cluster this Host holds (0 for a Host on its own data folder).',
    registers: [registry],
  });
  // Registered last: its `counts()` call queues in the mailbox, so the levels above are read before it.
  new Gauge({
    name: 'agent_schedule_tasks',
    help: 'Tasks per state, read at scrape time: each active task is scheduled, overdue or paused; failing (an active task whose latest attempt failed) overlaps them; ended tasks are inactive.',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      const answer = await counts().catch(() => undefined);
      this.reset();
      if (answer === undefined) return;
      for (const state of TASK_STATES) this.set({ state }, answer[state]);
    },
  });
  // Every labelled series shows from the first scrape, at zero.
  for (const counter of [delivered, failed, ...byStage.values()]) counter.inc(0);
  for (const outcome of ['ok', 'failed']) commits.zero({ outcome });
  shards.set(0);

  const port: ScheduleMetrics = {
    delivered(latenessSeconds) {
      delivered.inc();
      lateness.observe(latenessSeconds);
    },
    attemptFailed(stage, reminders) {
      byStage.get(stage)?.inc();
      failed.inc(reminders);
    },
    storageCommitted(seconds, ok) {
      (ok ? commitOk : commitFailed).observe(seconds);
    },
    shardsHeld(count) {
      shards.set(count);
    },
    observe(read) {
      readers.add(read);
      return () => readers.delete(read);
    },
  };
  return {
    port,
    contentType: registry.contentType,
    async exposition() {
      const [own, process] = await Promise.all([registry.metrics(), processMetrics().metrics()]);
      return `${own.trimEnd()}\n${process}`;
    },
  };
}

// `tsx test/cluster/trial/run.ts [trials] [seed]`: runs the multi-process fault trials of the
// PostgreSQL cluster (clusterTrial.ts) one after another on the database at PG_TEST_URL (default
// postgres://postgres@127.0.0.1:5432/test), printing one JSON line of figures per trial and a
// summary line at the end; the first failing trial stops the run with exit code 1 and names the
// schema it kept. The fault of each trial follows from the seed, unless `CLUSTER_TRIAL_FAULT=<kind>`
// names one or `CLUSTER_TRIAL_FAULTS=<kind>,…` a cycle. `npm run test:cluster` runs 8 trials, one
// of each fault: the kill at a random moment, inside a flush and between a flush and its commit,
// the stop past the lease, the join, the cut, and the two churns — a kill with a Host joining
// within the lease, a stop past the lease while a Host joins — whose reminders' lateness must stay
// within `leaseMs` + 2 s at the 99th percentile over the run (`npm run stress` runs 100: see RELIABILITY.md).
// A database that does not answer stops it first, with one line naming the URL.
import pg from 'pg';
import {
  CHURN_FAULTS,
  FAULTS,
  type FaultKind,
  LATENESS_P99_BOUND_MS,
  percentile,
  runClusterTrial,
  TrialFailure,
  type TrialFigures,
} from './clusterTrial.ts';

const trials = Number(process.argv[2] ?? 5);
const seed = Number(process.argv[3] ?? Date.now() % 1_000_000);
/** `CLUSTER_TRIAL_FAULT=<kind>` runs only that fault; `CLUSTER_TRIAL_FAULTS=<kind>,<kind>…` cycles through those, one per trial. */
const only = process.env.CLUSTER_TRIAL_FAULT as FaultKind | undefined;
if (only !== undefined && !FAULTS.includes(only)) throw new Error(`CLUSTER_TRIAL_FAULT must be one of ${FAULTS.join(', ')}`);
const cycle = (process.env.CLUSTER_TRIAL_FAULTS ?? '').split(',').filter((kind) => kind !== '') as FaultKind[];
const unknownFault = cycle.find((kind) => !FAULTS.includes(kind));
if (unknownFault !== undefined) throw new Error(`CLUSTER_TRIAL_FAULTS names ${unknownFault}; the faults are ${FAULTS.join(', ')}`);
const faultOf = (trial: number): FaultKind | undefined => only ?? cycle[(trial - 1) % cycle.length];
const url = process.env.PG_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const admin = new pg.Pool({
  connectionString: url,
  max: 4,
  application_name: 'agent-schedule-cluster-trials',
  connectionTimeoutMillis: 5000,
});
admin.on('error', () => undefined);
try {
  await admin.query('select 1');
} catch (error) {
  console.error(`The cluster trials need PostgreSQL at ${url} (PG_TEST_URL), which does not answer: ${(error as Error).message}`);
  await admin.end().catch(() => undefined);
  process.exit(2);
}

/** `CLUSTER_TRIAL_KEEP_GOING=1` goes on after a failed trial (each failure printed as a JSON line too). */
const keepGoing = process.env.CLUSTER_TRIAL_KEEP_GOING === '1';
const all: TrialFigures[] = [];
/** The figures of the failed trials that got as far as their checks (their lateness counts too). */
const failedFigures: TrialFigures[] = [];
const failed: Array<{ trial: number; fault?: string }> = [];
try {
  for (let trial = 1; trial <= trials; trial++) {
    try {
      const fault = faultOf(trial);
      const figures = await runClusterTrial({ trial, seed, url, admin, ...(fault === undefined ? {} : { fault }) });
      all.push(figures);
      const { latenessMs: _each, ...printed } = figures;
      console.log(JSON.stringify(printed));
    } catch (error) {
      const failure = error instanceof TrialFailure ? error : undefined;
      console.error((error as Error).message);
      failed.push({ trial, ...(failure?.fault === undefined ? {} : { fault: failure.fault }) });
      if (failure?.figures !== undefined) failedFigures.push(failure.figures);
      console.log(
        JSON.stringify({
          trial,
          failed: true,
          fault: failure?.fault,
          schema: failure?.schema,
          problems: failure?.problems.length,
          firstProblems: failure?.problems.slice(0, 3),
          figures: failure?.figures === undefined ? undefined : { ...failure.figures, latenessMs: undefined },
        }),
      );
      if (!keepGoing) break;
    }
  }
} finally {
  await admin.end();
}
// The churn trials' bound at the 99th percentile holds over the run, not each trial.
const churnLateness = [...all, ...failedFigures].filter((t) => CHURN_FAULTS.includes(t.fault)).flatMap((t) => t.latenessMs);
const churnP99 = Math.round(percentile(churnLateness, 99));
const churnMissed = churnP99 > LATENESS_P99_BOUND_MS;
if (churnMissed)
  console.error(
    `the churn trials' reminders were delivered ${churnP99} ms late at the 99th percentile, against ${LATENESS_P99_BOUND_MS} ms`,
  );
const exitCode = failed.length === 0 && !churnMissed ? 0 : 1;

const byFault = Object.fromEntries(FAULTS.map((f) => [f, all.filter((t) => t.fault === f).length]));
const delays = all.map((t) => t.worstDelayMs).sort((a, b) => a - b);
const takeovers = all.flatMap((t) => (t.takeoverMs === null ? [] : [t.takeoverMs])).sort((a, b) => a - b);
const mid = (values: number[]) => values[Math.floor((values.length - 1) / 2)] ?? 0;
console.log(
  JSON.stringify({
    summary: 'cluster trials',
    seed,
    trials: all.length,
    failures: failed.length,
    failedByFault: Object.fromEntries(FAULTS.map((f) => [f, failed.filter((t) => t.fault === f).length])),
    byFault,
    worstDelayMs: delays.at(-1) ?? 0,
    medianWorstDelayMs: mid(delays),
    medianDelayMs: mid(all.map((t) => t.medianDelayMs).sort((a, b) => a - b)),
    takeoverMs: { median: mid(takeovers), worst: takeovers.at(-1) ?? 0 },
    churnLatenessMs: {
      reminders: churnLateness.length,
      p99: churnP99,
      max: Math.max(0, ...churnLateness),
      boundP99: LATENESS_P99_BOUND_MS,
    },
    callsAcknowledged: all.reduce((n, t) => n + t.callsAcknowledged, 0),
    remindersDelivered: all.reduce((n, t) => n + t.remindersDelivered, 0),
    redeliveries: all.reduce((n, t) => n + t.redeliveries, 0),
    duplicatesDropped: all.reduce((n, t) => n + t.duplicatesDropped, 0),
    commitsAudited: all.reduce((n, t) => n + t.commitsAudited, 0),
    ownershipChanges: all.reduce((n, t) => n + t.ownershipChanges, 0),
    handOvers: all.reduce((n, t) => n + t.handOvers, 0),
  }),
);
process.exit(exitCode);

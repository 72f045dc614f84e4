// Whole-Host crash trials. Each trial starts the child (hostCrashChild.ts) on the same data folder
// with its accelerated clock where the last restart left off, kills it with SIGKILL as the seeded
// plan says (while starting, at a random moment, inside a Session flush, between a flush and the
// row write, inside a write, after a write before its acknowledgement), then restarts the Host's
// stack in this process on a manual clock set past every reminder due at the kill, lets it settle
// and checks: the domain opens; every acknowledged mutation is there and nothing never attempted;
// every reminder due before the kill reached its Session and was recorded; receipts point at the
// messages that carry them; raw redeliveries happen only for reminders whose row write never
// landed; and no transcript holds a reminder twice. Throws on the first violated check (transcript
// duplicates are counted and left to the caller).
import { join } from 'node:path';
import { openHostStack } from '../../host/stack.ts';
import { loadDomainFiles } from '../../src/adapters/loadDomain.ts';
import type { CatalogEntry } from '../../src/domain/types.ts';
import { createManualClock } from '../../src/testing.ts';
import { random } from '../storage/crashTrial.ts';
import { simulatedAt } from './acceleratedClock.ts';
import {
  checkDueDelivered,
  checkReceipts,
  classifyRedeliveries,
  duplicateKeys,
  flushedUnrecorded,
  readTranscripts,
  type Transcripts,
} from './hostCrashDelivery.ts';
import { AcknowledgedModel } from './hostCrashModel.ts';
import { PROBE_POINTS, probeSessions } from './hostCrashProbe.ts';
import { type ChildRun, type KillPhase, type KillPlan, runChild, type SeenFollowup } from './hostCrashRun.ts';
import { injectTornTail } from './hostCrashTorn.ts';

/** Where the simulated time of the first trial starts (a week before the 2030 US DST change). */
export const CRASH_START = '2030-03-03T12:00:00.000Z';
/** A real millisecond is a simulated minute. */
const FACTOR = 60_000;
/** Real milliseconds allowed for the two processes' clocks to disagree about the kill. */
const SLACK_MS = 20;
/** The restart's clock is this far (simulated) past the latest moment the child can have seen. */
const RESTART_AFTER_MS = 30 * 60_000;

/** What a run of trials saw. */
export interface HostCrashFigures {
  trials: number;
  kills: Partial<Record<KillPhase, number>>;
  /** Trials whose child folded its journal into schedule.json after every 2 KiB of journal. */
  compactingTrials: number;
  mutationsAttempted: number;
  /** Acknowledged mutations checked against the restarted domain. */
  mutationsAcknowledged: number;
  /** Calls in flight at a kill that turned out to have landed. */
  inFlightLanded: number;
  /** Reminders the children appended to Sessions. */
  deliveredByChildren: number;
  /** Reminders due before a kill and not recorded then, delivered and recorded after the restart. */
  dueBeforeKill: number;
  /** Reminders the restarts appended (redeliveries included). */
  deliveredAfterRestart: number;
  /** Reminders a Session held durably but whose row write never landed at the kill. */
  flushedUnrecorded: number;
  rawRedeliveries: number;
  /** Reminders appended before a kill but never made durable, appended again after it. */
  repeatedUnflushed: number;
  transcriptDuplicates: number;
  /** Torn lines added to a transcript or the journal after a kill, as a power loss would leave them. */
  tornTranscriptTails: number;
  tornJournalTails: number;
  refusals: Record<string, number>;
}

function planKill(rand: () => number): KillPlan {
  const roll = rand();
  if (roll < 0.1) return { kind: 'startup', afterMs: Math.floor(rand() * 500) };
  if (roll < 0.35) return { kind: 'random', afterMs: 20 + Math.floor(rand() * 900) };
  const point = PROBE_POINTS[Math.floor(rand() * PROBE_POINTS.length)] ?? 'flushed';
  return { kind: 'point', point, n: 1 + Math.floor(rand() * 25), fallbackMs: 1500 };
}

const fail = (trial: number, problems: readonly string[], run?: ChildRun): never => {
  const where = run === undefined ? '' : ` (killed ${run.phase})`;
  throw new Error(`whole-Host crash trial ${trial}${where}: ${problems.slice(0, 8).join('\n  ')}`);
};

/** Restarts the stack on a manual clock, lets it deliver what is due, and reads the result. */
async function restart(dataDir: string, at: number): Promise<{ rows: CatalogEntry[]; followups: SeenFollowup[]; errors: string[] }> {
  const clock = createManualClock(new Date(at).toISOString());
  const followups: SeenFollowup[] = [];
  const errors: string[] = [];
  const stack = await openHostStack({
    dataDir,
    clock,
    logger: { warn: () => undefined, error: (msg, data) => void errors.push(`${msg} ${String((data as { cause?: unknown })?.cause)}`) },
    wrap: {
      sessions: (inner) =>
        probeSessions(
          inner,
          async () => undefined,
          (sessionId, keys, messageId) => void followups.push({ sessionId, keys, messageId }),
        ),
    },
  });
  try {
    clock.attach(stack.service);
    await clock.advance(0);
    await stack.service.whenIdle();
    return { rows: await stack.service.remote.catalog(), followups, errors };
  } finally {
    await stack.close();
  }
}

/** Runs `trials` kill-and-restart trials on a Host data folder in `dataDir`. */
export async function runHostCrashTrials(options: {
  dataDir: string;
  trials: number;
  seed: number;
  onTrial?: (line: string) => void;
}): Promise<HostCrashFigures> {
  const { dataDir } = options;
  const rand = random(options.seed);
  const model = new AcknowledgedModel();
  const f: HostCrashFigures = {
    trials: 0,
    kills: {},
    compactingTrials: 0,
    mutationsAttempted: 0,
    mutationsAcknowledged: 0,
    inFlightLanded: 0,
    deliveredByChildren: 0,
    dueBeforeKill: 0,
    deliveredAfterRestart: 0,
    flushedUnrecorded: 0,
    rawRedeliveries: 0,
    repeatedUnflushed: 0,
    transcriptDuplicates: 0,
    tornTranscriptTails: 0,
    tornJournalTails: 0,
    refusals: {},
  };
  let now = Date.parse(CRASH_START);
  let held: Transcripts = await readTranscripts(dataDir);
  for (let trial = 1; trial <= options.trials; trial++) {
    const plan = planKill(rand);
    const compaction = rand() < 0.3 ? 2048 : null;
    const run = await runChild(
      {
        dataDir,
        seed: Math.floor(rand() * 2 ** 31),
        tag: String(trial),
        simStart: now,
        factor: FACTOR,
        hold: plan.kind === 'point' ? plan : null,
        compactionMinBytes: compaction,
        maxPauseMs: 25,
      },
      plan,
    );
    const killAt = run.anchor === null ? now : simulatedAt(run.anchor, run.killedAt + SLACK_MS);
    const restartAt = killAt + RESTART_AFTER_MS;
    if (run.errors.length > 0) fail(trial, run.errors, run);

    // The files as the kill left them (with a torn tail, now and then, as a power loss would leave).
    const path = join(dataDir, 'schedule.json');
    const load = () => loadDomainFiles(path).catch((error: unknown) => fail(trial, [`the domain does not load: ${String(error)}`], run));
    const torn = injectTornTail(dataDir, run.phase, (await load()).state.snapshot().tasks, rand);
    const loaded = await load();
    const rowsBefore = loaded.state.snapshot().tasks;
    const atKill = await readTranscripts(dataDir);

    // What the child appended: never a reminder its Sessions already held, never one twice.
    const childKeys = new Set<string>();
    for (const { sessionId, keys } of run.followups) {
      for (const key of keys) {
        if (childKeys.has(key) || (held.keys.get(sessionId)?.get(key)?.length ?? 0) > 0)
          fail(trial, [`the child appended ${key} to ${sessionId} although it had been appended before`], run);
        childKeys.add(key);
      }
    }

    const after = await restart(dataDir, restartAt).catch((error: unknown) => fail(trial, [`the restart failed: ${String(error)}`], run));
    if (after.errors.length > 0) fail(trial, after.errors, run);
    const final = await readTranscripts(dataDir);

    // Acknowledged mutations.
    const problems: string[] = [];
    const acknowledged = [...run.acks.keys()].sort((a, b) => a - b);
    for (const n of acknowledged) {
      const op = run.attempts.get(n);
      const problem = op === undefined ? `ack ${n} without an attempt` : model.apply(op, run.acks.get(n));
      if (problem !== undefined) problems.push(problem);
    }
    const last = Math.max(0, ...run.attempts.keys());
    const inFlight = run.acks.has(last) ? undefined : run.attempts.get(last);
    const checked = model.check(after.rows, inFlight);
    problems.push(...checked.problems);

    // Deliveries.
    const due = checkDueDelivered(rowsBefore, after.rows, final, killAt, restartAt);
    problems.push(...due.problems, ...checkReceipts(after.rows, final));
    const redeliveries = classifyRedeliveries(after.followups, atKill, rowsBefore, childKeys);
    problems.push(...redeliveries.problems);
    if (problems.length > 0) fail(trial, problems, run);

    model.adopt(after.rows);
    f.trials++;
    f.kills[run.phase] = (f.kills[run.phase] ?? 0) + 1;
    if (compaction !== null) f.compactingTrials++;
    f.mutationsAttempted += run.attempts.size;
    f.mutationsAcknowledged += run.acks.size;
    if (checked.inFlightLanded) f.inFlightLanded++;
    f.deliveredByChildren += childKeys.size;
    f.dueBeforeKill += due.dueBeforeKill;
    f.deliveredAfterRestart += after.followups.reduce((n, m) => n + m.keys.length, 0);
    f.flushedUnrecorded += flushedUnrecorded(atKill, rowsBefore, run.followups);
    f.rawRedeliveries += redeliveries.raw;
    f.repeatedUnflushed += redeliveries.repeatedUnflushed;
    if (torn === 'transcript') f.tornTranscriptTails++;
    if (torn === 'journal') f.tornJournalTails++;
    f.transcriptDuplicates = duplicateKeys(final);
    f.refusals = Object.fromEntries(model.refusals);
    held = final;
    now = restartAt;
    options.onTrial?.(
      `trial ${trial}: killed ${run.phase}; ${run.acks.size}/${run.attempts.size} calls acknowledged, ${childKeys.size} reminders appended, ${due.dueBeforeKill} due at the kill, ${redeliveries.raw} raw redeliveries`,
    );
  }
  return f;
}

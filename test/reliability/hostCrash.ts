// Whole-Host crash trials. Each trial is a chain of one to three lives of the child
// (hostCrashChild.ts) on the same data folder, with its accelerated clock where the last one left
// off. A child makes up to eight calls at once and is killed with SIGKILL as the seeded plan says
// (while starting, at a random moment, inside a Session flush, between a flush and the row write,
// inside a write, after a write before its acknowledgement). The next life starts right on the
// dead child's lock and journal — sometimes two children together, racing for the stale lock:
// exactly one may open, the other must be refused. After every kill the files are read as they
// are (no lock taken) and must hold every acknowledged mutation and nothing never attempted (the
// calls in flight, known by their unique titles, may or may not have landed); a child's appends
// may repeat a reminder its Session already held only when the row had not recorded it. After the
// last life the Host's stack is restarted in this process on a manual clock set past every
// reminder due at the kill, lets it settle and checks: the domain opens; the acknowledged state is
// there; every reminder due before the kill reached its Session and was recorded; receipts point
// at the messages that carry them; raw redeliveries happen only for reminders whose row write
// never landed; and no transcript holds a reminder twice. Throws on the first violated check
// (transcript duplicates are counted and left to the caller).
import { join } from 'node:path';
import { openHostStack } from '../../host/stack.ts';
import { loadDomainFiles } from '../../src/adapters/loadDomain.ts';
import type { CatalogEntry, TaskRow } from '../../src/domain/tasks/types.ts';
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
import { type ChildHooks, type ChildRun, type KillPhase, type KillPlan, runChild, type SeenFollowup } from './hostCrashRun.ts';
import { injectTornTail } from './hostCrashTorn.ts';
import type { WorkloadOp } from './hostCrashWorkload.ts';

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
  /** Children started right on a killed child's lock and journal (no clean restart between). */
  startsOnDeadChild: number;
  /** Lives where two children were started together on the dead child's stale lock. */
  staleLockRaces: number;
  /** Calls attempted but not acknowledged at a kill (several callers per child). */
  callsInFlightAtKills: number;
  /** The most callers one child ran at once. */
  maxCallers: number;
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

/** The calls of a run attempted before `n` whose answers never came. */
const pendingBefore = (run: ChildRun, n: number): WorkloadOp[] =>
  [...run.attempts].filter(([m]) => m < n && !run.acks.has(m)).map(([, op]) => op);

/** Starts one child, or two together (racing for the lock), and answers the one that opened. */
async function startLife(trial: number, options: Parameters<typeof runChild>[0], plan: KillPlan, race: boolean): Promise<ChildRun> {
  if (!race) {
    const run = await runChild(options, plan);
    if (run.refused !== null) fail(trial, [`the child was refused at open: ${run.refused.name} ${run.refused.message}`], run);
    return run;
  }
  const opens: Array<() => void> = [];
  const settled = [0, 1].map(() => new Promise<void>((resolve) => opens.push(resolve)));
  const armAfter = Promise.all(settled);
  const hooks = (i: number): ChildHooks => ({ onOpen: () => opens[i]?.(), armAfter });
  const runs = await Promise.all(
    ['a', 'b'].map((suffix, i) => runChild({ ...options, tag: `${options.tag}${suffix}`, seed: options.seed + i }, plan, hooks(i))),
  );
  const opened = runs.filter((run) => run.ready);
  if (opened.length !== 1) fail(trial, [`${opened.length} of two children started together on a stale lock opened the domain`]);
  const loser = runs.find((run) => !run.ready);
  if (loser?.refused?.name !== 'StorageLockedError')
    fail(trial, [
      `the child that lost the race for the stale lock was not refused with StorageLockedError: ${JSON.stringify(loser?.refused)}`,
    ]);
  return opened[0] as ChildRun;
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
    startsOnDeadChild: 0,
    staleLockRaces: 0,
    callsInFlightAtKills: 0,
    maxCallers: 0,
  };
  const path = join(dataDir, 'schedule.json');
  let now = Date.parse(CRASH_START);
  let held: Transcripts = await readTranscripts(dataDir);
  let rowsAtKill: readonly TaskRow[] = [];
  for (let trial = 1; trial <= options.trials; trial++) {
    const lives = 1 + (rand() < 0.4 ? 1 : 0) + (rand() < 0.15 ? 1 : 0);
    const compaction = rand() < 0.3 ? 2048 : null;
    /** Keys appended by this trial's children. */
    const chainKeys = new Set<string>();
    let killAt = now;
    let run: ChildRun | undefined;
    for (let life = 1; life <= lives; life++) {
      const race = life > 1 && rand() < 0.35;
      let plan = planKill(rand);
      // Children racing for the lock are killed only after both opens settled, at a random moment.
      if (race) plan = { kind: 'random', afterMs: 20 + Math.floor(rand() * 900) };
      const callers = 1 + Math.floor(rand() * 8);
      f.maxCallers = Math.max(f.maxCallers, callers);
      const childRun = await startLife(
        trial,
        {
          dataDir,
          seed: Math.floor(rand() * 2 ** 31),
          tag: `${trial}.${life}`,
          simStart: now,
          factor: FACTOR,
          hold: plan.kind === 'point' ? plan : null,
          compactionMinBytes: compaction,
          maxPauseMs: 25,
          window: callers,
        },
        plan,
        race,
      );
      run = childRun;
      if (life > 1) f.startsOnDeadChild++;
      if (race) f.staleLockRaces++;
      killAt = childRun.anchor === null ? now : simulatedAt(childRun.anchor, childRun.killedAt + SLACK_MS);
      if (childRun.errors.length > 0) fail(trial, childRun.errors, childRun);

      // The files as the kill left them (with a torn tail, now and then, as a power loss would leave).
      const load = () =>
        loadDomainFiles(path).catch((error: unknown) => fail(trial, [`the domain does not load: ${String(error)}`], childRun));
      const torn = injectTornTail(dataDir, childRun.phase, (await load()).state.snapshot().tasks, rand);
      if (torn === 'transcript') f.tornTranscriptTails++;
      if (torn === 'journal') f.tornJournalTails++;
      const rowsNow = (await load()).state.snapshot().tasks;
      const transcriptsNow = await readTranscripts(dataDir);

      // What the child appended: never one reminder twice; one its Sessions already held only when
      // it was started on a dead child's files and the row had not recorded that reminder.
      const childKeys = new Set<string>();
      const problems: string[] = [];
      for (const { sessionId, keys } of childRun.followups) {
        for (const key of keys) {
          if (childKeys.has(key)) problems.push(`the child appended ${key} to ${sessionId} twice`);
          else if (life === 1 && (held.keys.get(sessionId)?.get(key)?.length ?? 0) > 0)
            problems.push(`the child appended ${key} to ${sessionId} although it had been appended before`);
          childKeys.add(key);
        }
      }
      if (life > 1) {
        const again = classifyRedeliveries(childRun.followups, held, rowsAtKill, chainKeys);
        problems.push(...again.problems.map((p) => `the next child: ${p}`));
        f.rawRedeliveries += again.raw;
        f.repeatedUnflushed += again.repeatedUnflushed;
      }

      // Acknowledged mutations, against the files at the kill.
      for (const n of [...childRun.acks.keys()].sort((a, b) => a - b)) {
        const op = childRun.attempts.get(n);
        const problem =
          op === undefined ? `ack ${n} without an attempt` : model.apply(op, childRun.acks.get(n), pendingBefore(childRun, n));
        if (problem !== undefined) problems.push(problem);
      }
      const inFlight = [...childRun.attempts].filter(([n]) => !childRun.acks.has(n)).map(([, op]) => op);
      const checked = model.check(rowsNow, inFlight);
      problems.push(...checked.problems);
      if (problems.length > 0) fail(trial, problems, childRun);
      model.adopt(rowsNow);

      f.kills[childRun.phase] = (f.kills[childRun.phase] ?? 0) + 1;
      f.mutationsAttempted += childRun.attempts.size;
      f.mutationsAcknowledged += childRun.acks.size;
      f.callsInFlightAtKills += inFlight.length;
      if (checked.inFlightLanded) f.inFlightLanded++;
      f.deliveredByChildren += childKeys.size;
      f.flushedUnrecorded += flushedUnrecorded(transcriptsNow, rowsNow, childRun.followups);
      for (const key of childKeys) chainKeys.add(key);
      held = transcriptsNow;
      rowsAtKill = rowsNow;
      now = killAt;
    }
    if (run === undefined) throw new Error('a trial without a life');

    const restartAt = killAt + RESTART_AFTER_MS;
    const after = await restart(dataDir, restartAt).catch((error: unknown) => fail(trial, [`the restart failed: ${String(error)}`], run));
    if (after.errors.length > 0) fail(trial, after.errors, run);
    const final = await readTranscripts(dataDir);

    // The restart holds the acknowledged state (deliveries only move recurring targets forward).
    const problems = [...model.check(after.rows, []).problems];
    // Deliveries.
    const due = checkDueDelivered(rowsAtKill, after.rows, final, killAt, restartAt);
    problems.push(...due.problems, ...checkReceipts(after.rows, final));
    const redeliveries = classifyRedeliveries(after.followups, held, rowsAtKill, chainKeys);
    problems.push(...redeliveries.problems);
    if (problems.length > 0) fail(trial, problems, run);

    model.adopt(after.rows);
    f.trials++;
    if (compaction !== null) f.compactingTrials++;
    f.dueBeforeKill += due.dueBeforeKill;
    f.deliveredAfterRestart += after.followups.reduce((n, m) => n + m.keys.length, 0);
    f.rawRedeliveries += redeliveries.raw;
    f.repeatedUnflushed += redeliveries.repeatedUnflushed;
    f.transcriptDuplicates = duplicateKeys(final);
    f.refusals = Object.fromEntries(model.refusals);
    held = final;
    rowsAtKill = (await loadDomainFiles(path)).state.snapshot().tasks;
    now = restartAt;
    options.onTrial?.(
      `trial ${trial}: ${lives} ${lives === 1 ? 'life' : 'lives'}, last killed ${run.phase}; ${chainKeys.size} reminders appended, ${due.dueBeforeKill} due at the last kill, ${redeliveries.raw} raw redeliveries`,
    );
  }
  return f;
}

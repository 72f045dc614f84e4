// Benchmark (a): 10,000 recurring tasks over 1,000 Sessions all due at the same instant, with the
// manual clock, in-memory fake Sessions (flush resolves on a microtask) and memory storage: the wall
// time from the timer's wake to the first reminder appended to its Session (`followup()`), to the
// last one appended, and to the last delivery commit, the time until every actor has settled
// (`whenIdle()`: the last commit's rows have reached their task actors too), the garbage
// collections and minor page faults inside that time, and the messages sent (one batch per
// Session). Beside it, measured in the same process right after: the actor library's floor
// (support/floor.ts), the burst's own work without actors (support/workFloor.ts), and the burst's
// ratio to each.
import { loadavg } from 'node:os';
import { type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';
import { MemoryStorage } from '../src/adapters/memoryStorage.ts';
import type { CommitBatch } from '../src/ports.ts';
import { DEFAULT_MAX_CONCURRENT_RESTORES } from '../src/runtime/config.ts';
import { createScheduleService } from '../src/service.ts';
import { createFakeSessions, createManualClock } from '../src/testing.ts';
import { fmt } from './support/domains.ts';
import { burstEvents, DELIVERY_BURST, floorTable, measureFloor, SPREAD_ACTORS } from './support/floor.ts';
import { faultCostUs, minorFaults } from './support/pageFaults.ts';
import { median } from './support/stats.ts';
import { measureWork } from './support/workFloor.ts';

const START = '2030-01-01T08:00:00.000Z';
const DUE = '2030-01-01T09:00:00.000Z';
const TASKS = 10_000;
const SESSIONS = 1_000;
const RUNS = 5;

class TimedStorage extends MemoryStorage {
  lastCommitAt = 0;
  override async commit(batch: CommitBatch): Promise<void> {
    await super.commit(batch);
    this.lastCommitAt = performance.now();
  }
}

/** The garbage collections V8 reports from now on, until `stop`: their count and time inside a window. */
function watchCollections(): { within(from: number, to: number): { count: number; ms: number }; stop(): void } {
  const entries: PerformanceEntry[] = [];
  const observer = new PerformanceObserver((list) => entries.push(...list.getEntries()));
  observer.observe({ entryTypes: ['gc'] });
  return {
    within(from, to) {
      entries.push(...observer.takeRecords());
      const inside = entries.filter((e) => e.startTime >= from && e.startTime + e.duration <= to);
      return { count: inside.length, ms: inside.reduce((sum, e) => sum + e.duration, 0) };
    },
    stop: () => observer.disconnect(),
  };
}

interface BurstRun {
  readonly ms: number;
  /** From the wake to the first `followup()` reaching a Session. */
  readonly firstMs: number;
  /** From the wake to the last `followup()` reaching a Session. */
  readonly lastFollowupMs: number;
  readonly settledMs: number;
  /** Garbage collections between the wake and the moment every actor settled. */
  readonly collections: { readonly count: number; readonly ms: number };
  /** Minor page faults in that time. */
  readonly faults: number;
  readonly messages: number;
  readonly commits: number;
  readonly document: unknown;
}

async function run(): Promise<BurstRun> {
  const clock = createManualClock(START);
  let wokeAt = 0;
  let faultsAtWake = 0;
  const setTimeout = clock.setTimeout.bind(clock);
  clock.setTimeout = (fn, ms) =>
    setTimeout(() => {
      if (wokeAt === 0) {
        wokeAt = performance.now();
        faultsAtWake = minorFaults();
      }
      fn();
    }, ms);
  const sessions = createFakeSessions();
  let firstFollowupAt = 0;
  let lastFollowupAt = 0;
  const resolveAgent = sessions.resolveAgent.bind(sessions);
  sessions.resolveAgent = async (sessionId) => {
    const agent = await resolveAgent(sessionId);
    const followup = agent.followup.bind(agent);
    agent.followup = (message, meta) => {
      const result = followup(message, meta);
      if (wokeAt !== 0) {
        lastFollowupAt = performance.now();
        if (firstFollowupAt === 0) firstFollowupAt = lastFollowupAt;
      }
      return result;
    };
    return agent;
  };
  const storage = new TimedStorage();
  const svc = await createScheduleService({ sessions, storage, clock, logger: { warn() {}, error() {} } });
  const creates: Promise<unknown>[] = [];
  for (let i = 0; i < TASKS; i++) {
    creates.push(
      svc.callTool(`session-${i % SESSIONS}`, 'schedule_create', { prompt: `check ${i}`, title: `task ${i}`, every_seconds: 3600 }),
    );
  }
  await Promise.all(creates);
  await svc.whenIdle();
  // The rows the burst starts from, for the work measured without actors.
  const document = storage.document();
  // The setup's garbage is collected before the burst, so that the burst pays only for its own.
  (globalThis as { gc?: () => void }).gc?.();
  const commitsBefore = storage.commitCount;
  const collections = watchCollections();
  await clock.advance(3_600_000);
  await svc.whenIdle();
  const settledAt = performance.now();
  const faults = minorFaults() - faultsAtWake;
  // V8 reports a collection after it ends: one turn of the event loop lets the last one arrive.
  await new Promise((resolve) => setImmediate(resolve));
  const collected = collections.within(wokeAt, settledAt);
  collections.stop();
  let messages = 0;
  for (let s = 0; s < SESSIONS; s++) messages += sessions.messages(`session-${s}`).length;
  const result = {
    ms: storage.lastCommitAt - wokeAt,
    firstMs: firstFollowupAt - wokeAt,
    lastFollowupMs: lastFollowupAt - wokeAt,
    settledMs: settledAt - wokeAt,
    collections: collected,
    faults,
    messages,
    commits: storage.commitCount - commitsBefore,
    document,
  };
  await svc.close();
  return result;
}

const load = loadavg()[0] ?? Number.NaN;
const results = [];
for (let i = 0; i < RUNS + 1; i++) {
  const r = await run();
  if (i > 0) results.push(r); // the first run warms up
}
const floor = await measureFloor({ runs: RUNS });
const faultUs = faultCostUs();
// The burst's work on the same rows, committed about as often as the burst commits.
const document = results[0]?.document;
const sessionsPerCommit = Math.max(1, Math.round(SESSIONS / (results[0]?.commits ?? SESSIONS)));
const workTimes: number[] = [];
for (let i = 0; i < RUNS + 1; i++) {
  (globalThis as { gc?: () => void }).gc?.();
  const ms = await measureWork({ document, at: DUE, sessionsPerCommit, restores: DEFAULT_MAX_CONCURRENT_RESTORES });
  if (i > 0) workTimes.push(ms);
}
const work = median(workTimes);
const designFloor = work + floor.flatBurstFloorMs;
const spreadDesignFloor = work + floor.spreadFlatBurstFloorMs;
const times = results.map((r) => r.ms);
const lastCommit = median(times);
const settled = median(results.map((r) => r.settledMs));
console.log(
  `${TASKS} recurring tasks over ${SESSIONS} Sessions, all due at one instant; ${RUNS} runs after a warm-up run; load average ${load.toFixed(1)} at the start`,
);
console.log('');
console.log('| measure | value |');
console.log('|---|---:|');
console.log(`| wake → first reminder appended to its Session, median | ${fmt(median(results.map((r) => r.firstMs)))} ms |`);
console.log(`| wake → last reminder appended, median | ${fmt(median(results.map((r) => r.lastFollowupMs)))} ms |`);
console.log(`| wake → last commit, median | ${fmt(lastCommit)} ms |`);
console.log(`| wake → last commit, slowest | ${fmt(Math.max(...times))} ms |`);
console.log(`| wake → every actor settled (whenIdle), median | ${fmt(settled)} ms |`);
console.log(`| of which garbage collection, median | ${fmt(median(results.map((r) => r.collections.ms)))} ms |`);
console.log(`| garbage collections in that time, median | ${median(results.map((r) => r.collections.count))} |`);
const faults = median(results.map((r) => r.faults));
console.log(`| minor page faults in that time (fresh memory mapped), median | ${faults} |`);
console.log(
  `| their time at this machine's cost of one fault (${faultUs.toFixed(1)} µs, measured after the bursts) | ${fmt((faults * faultUs) / 1000)} ms |`,
);
console.log(`| messages sent | ${results[0]?.messages} |`);
console.log(`| delivery commits | ${results[0]?.commits} |`);
console.log('');
console.log('The floor, measured in this process right after the burst (xstate alone; bench/support/floor.ts):');
console.log('');
console.log(floorTable(floor, DELIVERY_BURST));
console.log('');
console.log('| ratio | value |');
console.log('|---|---:|');
console.log(
  `| burst median / the goal's floor (every event at one machine event's cost to one of ${SPREAD_ACTORS.toLocaleString('en')} actors) | ${(lastCommit / floor.spreadBurstFloorMs).toFixed(2)}× |`,
);
console.log(`| wake → every actor settled / the goal's floor | ${(settled / floor.spreadBurstFloorMs).toFixed(2)}× |`);
console.log(
  `| burst median / one hot actor's floor (every event at one machine event's cost to one actor) | ${(lastCommit / floor.burstFloorMs).toFixed(2)}× |`,
);
console.log(`| wake → every actor settled / one hot actor's floor | ${(settled / floor.burstFloorMs).toFixed(2)}× |`);
console.log('');
console.log(`The burst's own work without actors, on the same rows (${sessionsPerCommit} Sessions a commit; bench/support/workFloor.ts):`);
console.log('');
console.log('| measure | value |');
console.log('|---|---:|');
console.log(`| plan, deliver, apply and commit 10,000 deliveries, median of ${RUNS} | ${fmt(work)} ms |`);
console.log(`| the design's floor: that work + the burst's events at the flat logic's cost | ${fmt(designFloor)} ms |`);
console.log(`| burst median / the design's floor | ${(lastCommit / designFloor).toFixed(2)}× |`);
console.log(
  `| that work + the burst's events at the flat logic's cost to one of ${SPREAD_ACTORS.toLocaleString('en')} actors | ${fmt(spreadDesignFloor)} ms |`,
);
console.log(`| burst median / that floor | ${(lastCommit / spreadDesignFloor).toFixed(2)}× |`);
console.log('');
console.log(
  `goal: < 300 ms and within 15% (1.15×) of the goal's floor, ${burstEvents(DELIVERY_BURST).toLocaleString('en')} machine events each to one of ${SPREAD_ACTORS.toLocaleString('en')} actors; exactly ${SESSIONS} batch messages`,
);

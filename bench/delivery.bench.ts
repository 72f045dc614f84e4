// Benchmark (a): 10,000 recurring tasks over 1,000 Sessions all due at the same instant, with the
// manual clock, in-memory fake Sessions (flush resolves on a microtask) and memory storage: the wall
// time from the timer's wake to the last delivery commit, the time until every actor has settled
// (`whenIdle()`: the last commit's rows have reached their task actors too), and the messages sent
// (one batch per Session). Beside it, measured in the same process right after: the actor
// library's floor (support/floor.ts), the burst's own work without actors (support/workFloor.ts),
// and the burst's ratio to each.
import { loadavg } from 'node:os';
import { MemoryStorage } from '../src/adapters/memoryStorage.ts';
import type { CommitBatch } from '../src/ports.ts';
import { DEFAULT_MAX_CONCURRENT_RESTORES } from '../src/runtime/config.ts';
import { createScheduleService } from '../src/service.ts';
import { createFakeSessions, createManualClock } from '../src/testing.ts';
import { fmt, quantile } from './support/domains.ts';
import { DELIVERY_BURST, floorTable, measureFloor, SPREAD_ACTORS } from './support/floor.ts';
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

async function run(): Promise<{ ms: number; settledMs: number; messages: number; commits: number; document: unknown }> {
  const clock = createManualClock(START);
  let wokeAt = 0;
  const setTimeout = clock.setTimeout.bind(clock);
  clock.setTimeout = (fn, ms) =>
    setTimeout(() => {
      if (wokeAt === 0) wokeAt = performance.now();
      fn();
    }, ms);
  const sessions = createFakeSessions();
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
  await clock.advance(3_600_000);
  await svc.whenIdle();
  const settledAt = performance.now();
  let messages = 0;
  for (let s = 0; s < SESSIONS; s++) messages += sessions.messages(`session-${s}`).length;
  const result = {
    ms: storage.lastCommitAt - wokeAt,
    settledMs: settledAt - wokeAt,
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
// The burst's work on the same rows, committed about as often as the burst commits.
const document = results[0]?.document;
const sessionsPerCommit = Math.max(1, Math.round(SESSIONS / (results[0]?.commits ?? SESSIONS)));
const workTimes: number[] = [];
for (let i = 0; i < RUNS + 1; i++) {
  (globalThis as { gc?: () => void }).gc?.();
  const ms = await measureWork({ document, at: DUE, sessionsPerCommit, restores: DEFAULT_MAX_CONCURRENT_RESTORES });
  if (i > 0) workTimes.push(ms);
}
const work = quantile(
  [...workTimes].sort((a, b) => a - b),
  0.5,
);
const designFloor = work + floor.flatBurstFloorMs;
const spreadDesignFloor = work + floor.spreadFlatBurstFloorMs;
const times = results.map((r) => r.ms).sort((a, b) => a - b);
const median = quantile(times, 0.5);
const settled = quantile(
  results.map((r) => r.settledMs).sort((a, b) => a - b),
  0.5,
);
console.log(
  `${TASKS} recurring tasks over ${SESSIONS} Sessions, all due at one instant; ${RUNS} runs after a warm-up run; load average ${load.toFixed(1)} at the start`,
);
console.log('');
console.log('| measure | value |');
console.log('|---|---:|');
console.log(`| wake → last commit, median | ${fmt(median)} ms |`);
console.log(`| wake → last commit, slowest | ${fmt(times.at(-1) ?? Number.NaN)} ms |`);
console.log(`| wake → every actor settled (whenIdle), median | ${fmt(settled)} ms |`);
console.log(`| messages sent | ${results[0]?.messages} |`);
console.log(`| delivery commits | ${results[0]?.commits} |`);
console.log('');
console.log('The floor, measured in this process right after the burst (xstate alone; bench/support/floor.ts):');
console.log('');
console.log(floorTable(floor, DELIVERY_BURST));
console.log('');
console.log('| ratio | value |');
console.log('|---|---:|');
console.log(`| burst median / floor (every event at one machine event's cost) | ${(median / floor.burstFloorMs).toFixed(2)}× |`);
console.log(`| wake → every actor settled / floor | ${(settled / floor.burstFloorMs).toFixed(2)}× |`);
console.log('');
console.log(`The burst's own work without actors, on the same rows (${sessionsPerCommit} Sessions a commit; bench/support/workFloor.ts):`);
console.log('');
console.log('| measure | value |');
console.log('|---|---:|');
console.log(`| plan, deliver, apply and commit 10,000 deliveries, median of ${RUNS} | ${fmt(work)} ms |`);
console.log(`| the design's floor: that work + the burst's events at the flat logic's cost | ${fmt(designFloor)} ms |`);
console.log(`| burst median / the design's floor | ${(median / designFloor).toFixed(2)}× |`);
console.log(
  `| that work + the burst's events at the flat logic's cost to one of ${SPREAD_ACTORS.toLocaleString('en')} actors | ${fmt(spreadDesignFloor)} ms |`,
);
console.log(`| burst median / that floor | ${(median / spreadDesignFloor).toFixed(2)}× |`);
console.log('');
console.log(`goal: < 300 ms and within 15% of the floor (1.15×), exactly ${SESSIONS} batch messages`);

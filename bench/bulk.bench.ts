// Benchmark: the counts per state and a bulk pause at 100,000 tasks. `remote.counts()` (kept as
// rows change) against a scan of the catalog doing the same count; then `remote.bulk` pausing
// every task of a text filter in batches of 200, with how many calls made meanwhile were answered
// and the longest any of them waited (the mailbox serves them between batches). Each figure is
// the time from the call to its answer.
import { memoryStorage } from '../src/adapters/memoryStorage.ts';
import { encodeDocument } from '../src/domain/codec/index.ts';
import { countRows } from '../src/domain/reads/stateCounts.ts';
import { createScheduleService } from '../src/service.ts';
import { createFakeSessions, createManualClock } from '../src/testing.ts';
import { activeRows, fmt } from './support/domains.ts';
import { quantile } from './support/stats.ts';

const SIZE = Number(process.env.BULK_TASKS ?? 100_000);
const SESSIONS = 1_000;
const ROUNDS = 50;

const rows = activeRows(SIZE, SESSIONS, '2030-05-31T23:30:00.000Z');
const clock = createManualClock('2030-06-01T00:00:00.000Z');
const svc = await createScheduleService({
  sessions: createFakeSessions(),
  storage: memoryStorage(encodeDocument({ tasks: rows, nextTaskNumber: SIZE + 1 })),
  clock,
  logger: { warn() {}, error() {} },
});

async function time(call: () => Promise<unknown>): Promise<{ median: number; p99: number }> {
  for (let i = 0; i < 3; i++) await call();
  const samples: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = performance.now();
    await call();
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  return { median: quantile(samples, 0.5), p99: quantile(samples, 0.99) };
}

console.log(`${SIZE.toLocaleString('en')} tasks over ${SESSIONS} Sessions in memory storage, Node ${process.version}`);
console.log('');
console.log('| call | median ms | p99 ms |');
console.log('|---|---:|---:|');
const kept = await time(() => svc.remote.counts());
console.log(`| remote.counts() (kept) | ${fmt(kept.median, 3)} | ${fmt(kept.p99, 3)} |`);
const session = await time(() => svc.remote.counts({ sessionId: 'session-7' }));
console.log(`| remote.counts({sessionId}) (kept + one Session's scan) | ${fmt(session.median, 3)} | ${fmt(session.p99, 3)} |`);
const scanned = await time(async () => countRows(await svc.remote.catalog(), clock.now(), (entry) => entry.failure));
console.log(`| the same count as a scan of remote.catalog() (for comparison) | ${fmt(scanned.median, 1)} | ${fmt(scanned.p99, 1)} |`);

// A call made during the bulk call waits at most about one batch.
let longest = 0;
let calls = 0;
let running = true;
const probe = (async () => {
  while (running) {
    const t0 = performance.now();
    await svc.remote.counts();
    longest = Math.max(longest, performance.now() - t0);
    calls++;
  }
})();
const t0 = performance.now();
const result = await svc.remote.bulk({ action: 'pause', filter: { text: 'project' } });
const total = performance.now() - t0;
running = false;
await probe;
if ('code' in result) throw new Error(`bulk refused: ${result.code}`);
console.log('');
console.log('| bulk pause by a text filter | tasks | ms | calls answered meanwhile | longest wait of one, ms |');
console.log('|---|---:|---:|---:|---:|');
console.log(
  `| remote.bulk({action: 'pause', filter: {text}}) | ${result.done.toLocaleString('en')} | ${fmt(total, 0)} | ${calls} | ${fmt(longest, 1)} |`,
);
await svc.close();

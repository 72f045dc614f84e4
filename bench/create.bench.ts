// Benchmark (b): schedule_create through the service with JSON storage in a temp folder, into
// domains of 1k and 100k active tasks: latency one call at a time (median, p99) and throughput
// with 64 calls in flight; the 100k/1k latency ratio is the figure that must stay flat.
import { jsonFileStorage } from '../src/adapters/jsonFileStorage.ts';
import { createScheduleService } from '../src/service.ts';
import { createFakeSessions, createManualClock } from '../src/testing.ts';
import { activeRows, fmt, writeDomain } from './support/domains.ts';
import { quantile } from './support/stats.ts';

const SIZES = [1_000, 100_000];
const SEQUENTIAL = 2_000;
const CONCURRENT = 4_000;
const IN_FLIGHT = 64;

interface Figures {
  size: number;
  median: number;
  p99: number;
  mean: number;
  perSecond: number;
}

async function measure(size: number): Promise<Figures> {
  const { path, cleanup } = writeDomain(activeRows(size, 1_000, '2031-01-01T00:00:00.000Z'));
  const clock = createManualClock('2030-06-01T00:00:00.000Z');
  const svc = await createScheduleService({
    sessions: createFakeSessions(),
    storage: jsonFileStorage({ path }),
    clock,
    logger: { warn() {}, error() {} },
  });
  const args = (i: number) => ({ prompt: `Follow up on request ${i}`, title: `Follow-up ${i}`, every_seconds: 3600 + i });
  for (let i = 0; i < 200; i++) await svc.callTool(`session-${i % 1000}`, 'schedule_create', args(i)); // warm-up
  const latencies: number[] = [];
  for (let i = 0; i < SEQUENTIAL; i++) {
    const t0 = performance.now();
    const view = (await svc.callTool(`session-${i % 1000}`, 'schedule_create', args(i))) as { code?: string };
    latencies.push(performance.now() - t0);
    if (view.code !== undefined) throw new Error(`create failed: ${view.code}`);
  }
  latencies.sort((a, b) => a - b);
  let next = 0;
  const t0 = performance.now();
  const worker = async () => {
    while (next < CONCURRENT) {
      const i = next++;
      await svc.callTool(`session-${i % 1000}`, 'schedule_create', args(i));
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const perSecond = CONCURRENT / ((performance.now() - t0) / 1000);
  await svc.close();
  cleanup();
  return {
    size,
    median: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    mean: latencies.reduce((a, b) => a + b, 0) / latencies.length,
    perSecond,
  };
}

const results: Figures[] = [];
for (const size of SIZES) results.push(await measure(size));
console.log(
  `schedule_create with jsonFileStorage (journal + group commit, fsync per write); ${SEQUENTIAL} calls one at a time, then ${CONCURRENT} with ${IN_FLIGHT} in flight`,
);
console.log('');
console.log('| active tasks | median | p99 | mean | creates/s (64 in flight) |');
console.log('|---:|---:|---:|---:|---:|');
for (const r of results)
  console.log(
    `| ${r.size.toLocaleString('en')} | ${fmt(r.median, 2)} ms | ${fmt(r.p99, 2)} ms | ${fmt(r.mean, 2)} ms | ${fmt(r.perSecond, 0)} |`,
  );
const [small, large] = results;
if (small !== undefined && large !== undefined) {
  console.log('');
  console.log(
    `100k/1k latency ratio: median ${fmt(large.median / small.median, 2)}, p99 ${fmt(large.p99 / small.p99, 2)}, mean ${fmt(large.mean / small.mean, 2)} (goal ≤ 1.5)`,
  );
}

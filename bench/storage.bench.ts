// Storage benchmark (`npm run bench storage`): the cost of one single-task commit as the domain
// grows (1k, 10k, 100k tasks whose rows carry a history of 20 receipts), for
//   (a) whole-document rewrite — the simplest design: encode every task and atomically replace
//       schedule.json on each commit (a minimal baseline kept here, not in src/), and
//   (b) this project's jsonFileStorage — one fsynced journal line per commit, group commit,
//       compaction past a threshold relative to the document size;
// plus (b) with 64 commits in flight (group commit), open time and heap of the 100k domain, and
// the time of the compacting close. Figures are printed as a markdown table; nothing is asserted.
import { closeSync, fsyncSync, mkdtempSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { jsonFileStorage } from '../src/adapters/jsonFileStorage.ts';
import { encodeDocumentChunks } from '../src/domain/codec/index.ts';
import { withDelivery } from '../src/domain/tasks/retention.ts';
import type { DeliveryReceipt, ScheduleRecord, TaskRow } from '../src/domain/tasks/types.ts';

const SIZES = [1_000, 10_000, 100_000];
const JOURNAL_SAMPLES = 1_000;
/** Unmeasured commits before each measured run (JIT and file warm-up). */
const WARMUP_COMMITS = 200;
const CONCURRENT_COMMITS = 2_000;
const IN_FLIGHT = 64;
/** Rewrite samples per size: a rewrite costs the whole document, so the larger the domain the fewer samples. */
const REWRITE_SAMPLES: Record<number, number> = { 1000: 200, 10000: 40, 100000: 6 };
const HISTORY = { days: 3650, records: 20 };
const BASE_MS = Date.parse('2030-01-01T08:00:00.000Z');

const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
const iso = (ms: number) => new Date(ms).toISOString();
const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

function record(n: number): ScheduleRecord {
  const base = {
    id: `sch_${n}`,
    title: `Review queue ${n}`,
    prompt: `Review the build queue for project ${n % 97} and report failures`,
    scheduledAt: iso(BASE_MS + n * 60_000),
  };
  switch (n % 4) {
    case 0:
      return { ...base, kind: 'every', everySeconds: 3600 };
    case 1:
      return { ...base, kind: 'daily', time: '09:00:00', timeZone: 'Asia/Shanghai' };
    case 2:
      return { ...base, kind: 'weekly', time: '18:30:00', timeZone: 'Europe/London', weekdays: [1, 3, 5] };
    default:
      return { ...base, kind: 'cron', expression: '*/15 9-17 * * 1-5', timeZone: 'America/New_York' };
  }
}

const receiptFor = (n: number, k: number, prompt: string): DeliveryReceipt => ({
  scheduledAt: iso(BASE_MS + k * 3_600_000),
  deliveredAt: iso(BASE_MS + k * 3_600_000 + 431),
  messageId: `msg_${n}_${k}`,
  prompt,
});

/** A realistic row: a recurring task with 20 saved receipts, the last one as lastDelivery. */
function makeRow(n: number): TaskRow {
  let row: TaskRow = {
    sessionId: `session_${n % 500}`,
    status: 'active',
    record: record(n),
    deliveryHistory: { records: [], earlierRecordsUnavailable: false, earlierRecordsPruned: false },
  };
  for (let k = 0; k < 20; k++) row = withDelivery(row, receiptFor(n, k, row.record.prompt), HISTORY);
  return row;
}

/** The row after one more delivery (what a delivery commit writes). */
const delivered = (row: TaskRow, k: number): TaskRow =>
  withDelivery(row, receiptFor(Number(row.record.id.slice(4)), k, row.record.prompt), HISTORY);

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  const total = samples.reduce((a, b) => a + b, 0);
  return { n: samples.length, median: at(0.5), p99: at(0.99), mean: total / samples.length, perSecond: (1000 * samples.length) / total };
}

/** Writes a document of `size` realistic rows; the rows are garbage once this returns. */
function createDocument(path: string, size: number): void {
  const rows = Array.from({ length: size }, (_, i) => makeRow(i + 1));
  const fd = openSync(path, 'w');
  for (const chunk of encodeDocumentChunks(rows, rows.length + 1)) writeSync(fd, chunk);
  fsyncSync(fd);
  closeSync(fd);
}

/** (a) The baseline: rewrite the whole document atomically on every commit. */
function rewriteCommit(dir: string, path: string, rows: Map<string, TaskRow>, next: number): void {
  const text = JSON.stringify({ version: 1, nextTaskNumber: next, tasks: [...rows.values()] });
  const temp = `${path}.tmp`;
  const fd = openSync(temp, 'w');
  writeSync(fd, text);
  fsyncSync(fd);
  closeSync(fd);
  renameSync(temp, path);
  const dirFd = openSync(dir, 'r');
  fsyncSync(dirFd);
  closeSync(dirFd);
}

interface Result {
  size: number;
  journal: ReturnType<typeof stats>;
  concurrentPerSecond: number;
  rewrite: ReturnType<typeof stats>;
  documentMiB: string;
  openMs: number;
  heapMiB: string;
  closeMs: number;
}

async function measure(size: number): Promise<Result> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-schedule-bench-'));
  const path = join(dir, 'schedule.json');
  try {
    createDocument(path, size);
    const documentMiB = mib(statSync(path).size);
    gc();
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    const storage = jsonFileStorage({ path });
    const t0 = performance.now();
    const domain = await storage.open();
    const openMs = performance.now() - t0;
    gc();
    const heapMiB = mib(process.memoryUsage().heapUsed - heapBefore);
    const rows = new Map(domain.tasks.map((row) => [row.record.id, row]));
    const pick = (i: number) => rows.get(`sch_${((i * 7919) % size) + 1}`) as TaskRow;

    for (let i = 0; i < WARMUP_COMMITS; i++) {
      const row = delivered(pick(i + 3), 50 + i);
      await storage.commit({ puts: [row], deletes: [] });
      rows.set(row.record.id, row);
    }
    await storage.idle();

    const journalSamples: number[] = [];
    for (let i = 0; i < JOURNAL_SAMPLES; i++) {
      const row = delivered(pick(i), 100 + i);
      const start = performance.now();
      await storage.commit({ puts: [row], deletes: [] });
      journalSamples.push(performance.now() - start);
      rows.set(row.record.id, row);
    }
    await storage.idle();

    const concurrentStart = performance.now();
    let issued = 0;
    await new Promise<void>((resolve, reject) => {
      let done = 0;
      const issue = () => {
        const i = issued++;
        const row = delivered(pick(i + 7), 5000 + i);
        rows.set(row.record.id, row);
        storage.commit({ puts: [row], deletes: [] }).then(() => {
          if (++done === CONCURRENT_COMMITS) resolve();
          else if (issued < CONCURRENT_COMMITS) issue();
        }, reject);
      };
      for (let i = 0; i < IN_FLIGHT; i++) issue();
    });
    const concurrentPerSecond = (1000 * CONCURRENT_COMMITS) / (performance.now() - concurrentStart);
    const closeStart = performance.now();
    await storage.close();
    const closeMs = performance.now() - closeStart;

    const rewriteSamples: number[] = [];
    const samples = REWRITE_SAMPLES[size] ?? 10;
    for (let i = 0; i < samples; i++) {
      const row = delivered(pick(i), 20_000 + i);
      const start = performance.now();
      rows.set(row.record.id, row);
      rewriteCommit(dir, path, rows, size + 1);
      rewriteSamples.push(performance.now() - start);
    }
    return {
      size,
      journal: stats(journalSamples),
      concurrentPerSecond,
      rewrite: stats(rewriteSamples),
      documentMiB,
      openMs,
      heapMiB,
      closeMs,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));
const results: Result[] = [];
for (const size of SIZES) {
  results.push(await measure(size));
  gc();
}

console.log(`Single-task delivery commits (the row gains a receipt; history capped at 20) into domains of realistic rows.`);
console.log(
  `Journal: ${JOURNAL_SAMPLES} sequential commits per size; rewrite: ${SIZES.map((s) => `${REWRITE_SAMPLES[s]} at ${s / 1000}k`).join(', ')} (scaled so the 100k rewrite stays short).`,
);
console.log(`Temp dir: ${tmpdir()}; Node ${process.version}.\n`);
console.log('| tasks | schedule.json | design | samples | median ms | p99 ms | mean ms | commits/s |');
console.log('|---:|---:|---|---:|---:|---:|---:|---:|');
for (const r of results) {
  const label = `${r.size / 1000}k`;
  console.log(
    `| ${label} | ${r.documentMiB} MiB | (a) whole-document rewrite | ${r.rewrite.n} | ${fmt(r.rewrite.median)} | ${fmt(r.rewrite.p99)} | ${fmt(r.rewrite.mean)} | ${r.rewrite.perSecond.toFixed(1)} |`,
  );
  console.log(
    `| ${label} | ${r.documentMiB} MiB | (b) journal + group commit | ${r.journal.n} | ${fmt(r.journal.median)} | ${fmt(r.journal.p99)} | ${fmt(r.journal.mean)} | ${r.journal.perSecond.toFixed(0)} |`,
  );
  console.log(
    `| ${label} | ${r.documentMiB} MiB | (b) with ${IN_FLIGHT} commits in flight | ${CONCURRENT_COMMITS} | | | | ${r.concurrentPerSecond.toFixed(0)} |`,
  );
}
const first = results[0];
const last = results.at(-1);
if (first !== undefined && last !== undefined) {
  const ratio = (a: number, b: number) => (a / b).toFixed(2);
  console.log(`\n100k/1k cost ratio (mean per-commit time; median in brackets):`);
  console.log(
    `- (a) whole-document rewrite: ${ratio(last.rewrite.mean, first.rewrite.mean)} (${ratio(last.rewrite.median, first.rewrite.median)})`,
  );
  console.log(
    `- (b) journal + group commit: ${ratio(last.journal.mean, first.journal.mean)} (${ratio(last.journal.median, first.journal.median)}) — goal ≤ 1.5`,
  );
  console.log('\n| tasks | open ms | heap after open | compacting close ms |');
  console.log('|---:|---:|---:|---:|');
  for (const r of results) console.log(`| ${r.size / 1000}k | ${fmt(r.openMs)} | ${r.heapMiB} MiB | ${fmt(r.closeMs)} |`);
}

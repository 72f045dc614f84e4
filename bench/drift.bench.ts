// Benchmark: the time-zone data drift report (`driftReport`, what `remote.drift()` computes in
// its mailbox slot) over 100,000 active wall-clock tasks — daily, weekly and cron rules in six
// zones, with and without DST, one in a hundred targets drifted by an hour. Each task costs one
// backward jump of the recurrence engine (and a forward one when drifted), so the report is one
// pass with no minute walking. Zone caches are warm after the first round.

import { ruleFromRecord } from '../src/domain/tasks/records.ts';
import type { ScheduleRecord, TaskRow, WallClockRule } from '../src/domain/tasks/types.ts';
import { driftOf, driftReport } from '../src/domain/time/drift.ts';
import { wallClockFirings } from '../src/domain/time/recurrence.ts';
import { fmt } from './support/domains.ts';
import { quantile } from './support/stats.ts';

const SIZE = Number(process.env.DRIFT_TASKS ?? 100_000);
const ROUNDS = 7;
const ZONES = ['UTC', 'Europe/Paris', 'America/New_York', 'Asia/Tokyo', 'Australia/Lord_Howe', 'Asia/Kolkata'];
const NOW = Date.parse('2030-06-01T00:00:00.000Z');

function recordOf(i: number): ScheduleRecord {
  const base = { id: `sch_${i + 1}`, title: `Task ${i}`, prompt: 'p', scheduledAt: '' };
  const timeZone = ZONES[i % ZONES.length] ?? 'UTC';
  const hour = String(i % 24).padStart(2, '0');
  switch (i % 3) {
    case 0:
      return { ...base, kind: 'daily', time: `${hour}:15:00`, timeZone };
    case 1:
      return { ...base, kind: 'weekly', time: `${hour}:45:00`, timeZone, weekdays: [1 + (i % 7)] };
    default:
      return { ...base, kind: 'cron', expression: `${i % 60} ${i % 24} * * 1-5`, timeZone };
  }
}

const rows: TaskRow[] = [];
for (let i = 0; i < SIZE; i++) {
  const record = recordOf(i);
  const next = wallClockFirings(ruleFromRecord(record) as WallClockRule).next(NOW + (i % 1000) * 60_000);
  if (next === null) throw new Error(`no target for ${record.id}`);
  const target = i % 100 === 0 ? next - 3_600_000 : next;
  rows.push({ sessionId: `s${i % 100}`, status: 'active', record: { ...record, scheduledAt: new Date(target).toISOString() } });
}

/** Sorted timings of `ROUNDS` runs after one warm-up; `run` answers the drifted count. */
function measure(run: () => number): { samples: number[]; drifted: number } {
  const samples: number[] = [];
  let drifted = 0;
  for (let round = 0; round <= ROUNDS; round++) {
    const t0 = performance.now();
    drifted = run();
    const ms = performance.now() - t0;
    if (round > 0) samples.push(ms);
  }
  return { samples: samples.sort((a, b) => a - b), drifted };
}

const { samples, drifted } = measure(() => driftReport(rows).length);
// The same pass preparing every task's rule afresh, as if no two tasks shared a rule.
const fresh = measure(() => rows.filter((row) => driftOf(row) !== undefined).length).samples;
const distinct = new Set(rows.map((r) => JSON.stringify(ruleFromRecord(r.record)))).size;
console.log(
  `${SIZE.toLocaleString('en-US')} active wall-clock tasks (daily, weekly, cron; ${ZONES.length} zones, ${distinct.toLocaleString('en-US')} distinct rules), ${drifted.toLocaleString('en-US')} drifted. Node ${process.version}.`,
);
console.log('');
console.log('| report | median ms | max ms | µs/task |');
console.log('|---|---:|---:|---:|');
for (const [name, times] of [
  ['`driftReport` (shared rules prepared once)', samples],
  ['every rule prepared per task', fresh],
] as const) {
  const median = quantile(times, 0.5);
  console.log(`| ${name} | ${fmt(median)} | ${fmt(times[times.length - 1] ?? 0)} | ${fmt((median * 1000) / SIZE, 2)} |`);
}

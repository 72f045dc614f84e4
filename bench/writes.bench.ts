// Write benchmark (`npm run bench writes`): the bytes a delivery makes the JSON file storage write,
// counted through its file-system seam, for tasks with long prompts and full histories. Two runs
// through the real service (manual clock, fake Sessions, jsonFileStorage in a temp folder):
//   (1) steady state — one task firing every minute whose row already holds 200 receipts (each
//       delivery appends one and prunes one), with a 60,000- and a 16,384-character prompt;
//   (2) the growth scenario — 5 tasks with 60,000-character prompts firing every minute for 4
//       simulated hours from empty histories: total bytes written and the final schedule.json.
// The rows are seeded as a stored document (a prompt that long may be stored by an older version
// even where input refuses it). Figures are printed as markdown tables; nothing is asserted.
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonFileStorage } from '../src/adapters/jsonFileStorage.ts';
import { encodeDocument } from '../src/domain/codec/index.ts';
import { DEFAULT_RETENTION, withDelivery } from '../src/domain/tasks/retention.ts';
import type { DeliveryReceipt, TaskRow } from '../src/domain/tasks/types.ts';
import { createScheduleService } from '../src/service.ts';
import { createFakeSessions, createManualClock } from '../src/testing.ts';
import { countingFileSystem, type WriteCounts } from './support/countingFs.ts';

const START = '2030-01-01T08:00:00.000Z';
const START_MS = Date.parse(START);
const MINUTE = 60_000;
const STEADY_DELIVERIES = 30;
const SCENARIO_TASKS = 5;
const SCENARIO_HOURS = 4;
/** The file storage's default compaction floor (1 MiB). */
const COMPACTION_MIN_BYTES = 1 << 20;

const iso = (ms: number) => new Date(ms).toISOString();

/** A prompt of exactly `length` characters (prose, trimmed). */
function promptOf(length: number, salt: number): string {
  const sentence = `Task ${salt}: review the open pull requests, re-run the flaky suites and summarise what changed since the last reminder. `;
  let text = '';
  while (text.length < length) text += sentence;
  return `${text.slice(0, length - 1)}.`;
}

/** An every-minute task due one minute after START, with `receipts` saved deliveries of its prompt. */
function seededRow(n: number, prompt: string, receipts: number): TaskRow {
  let row: TaskRow = {
    sessionId: `session-${n}`,
    status: 'active',
    record: { id: `sch_${n}`, kind: 'every', title: `Review ${n}`, prompt, scheduledAt: iso(START_MS + MINUTE), everySeconds: 60 },
    deliveryHistory: { records: [], earlierRecordsUnavailable: false, earlierRecordsPruned: false },
  };
  for (let k = 0; k < receipts; k++) {
    const at = START_MS - (receipts - k) * MINUTE;
    const receipt: DeliveryReceipt = { scheduledAt: iso(at), deliveredAt: iso(at + 250), messageId: `seed-${n}-${k}`, prompt };
    row = withDelivery(row, receipt, DEFAULT_RETENTION);
  }
  return row;
}

interface Run {
  readonly deliveries: number;
  /** Bytes written while the deliveries ran (journal appends and any compaction). */
  readonly during: WriteCounts;
  /** Bytes written by the compacting close. */
  readonly close: WriteCounts;
  readonly documentBytes: number;
  readonly seededBytes: number;
}

async function runService(rows: TaskRow[], minutes: number): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-schedule-writes-'));
  const path = join(dir, 'schedule.json');
  try {
    const seeded = encodeDocument({ tasks: rows, nextTaskNumber: rows.length + 1 });
    writeFileSync(path, seeded);
    const counting = countingFileSystem();
    const clock = createManualClock(START);
    const sessions = createFakeSessions();
    const storage = jsonFileStorage({ path, fs: counting.fs });
    const svc = await createScheduleService({ sessions, storage, clock, logger: { warn() {}, error() {} } });
    clock.attach(svc);
    counting.reset();
    for (let m = 0; m < minutes; m++) await clock.advance(MINUTE);
    await svc.whenIdle();
    const during = { ...counting.counts };
    let deliveries = 0;
    for (const row of rows) deliveries += sessions.messages(row.sessionId).length;
    counting.reset();
    await svc.close();
    const close = { ...counting.counts };
    return { deliveries, during, close, documentBytes: statSync(path).size, seededBytes: Buffer.byteLength(seeded) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const total = (c: WriteCounts) => c.journal + c.document + c.other;
const bytes = (n: number): string => {
  if (n >= 1024 ** 3) return `${(n / 1024 ** 3).toFixed(2)} GiB`;
  if (n >= 1024 ** 2) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${n} B`;
};
const perDelivery = (n: number, deliveries: number) => Math.round(n / Math.max(1, deliveries)).toLocaleString('en-US');

console.log(
  `Node ${process.version}; temp dir ${tmpdir()}; retention ${DEFAULT_RETENTION.records} receipts / ${DEFAULT_RETENTION.days} days.\n`,
);
console.log(`(1) Steady state: one task every minute, 200 saved receipts, ${STEADY_DELIVERIES} deliveries.\n`);
console.log(
  '| prompt | schedule.json at start | deliveries | journal B/delivery | document B/delivery (compaction) | total B/delivery | rewrites | close writes |',
);
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
const amortised: string[] = [];
for (const length of [60_000, 16_384]) {
  const r = await runService([seededRow(1, promptOf(length, 1), 200)], STEADY_DELIVERIES);
  console.log(
    `| ${length.toLocaleString('en-US')} | ${bytes(r.seededBytes)} | ${r.deliveries} | ${perDelivery(r.during.journal, r.deliveries)} | ${perDelivery(r.during.document, r.deliveries)} | ${perDelivery(total(r.during), r.deliveries)} | ${r.during.documentRewrites} | ${bytes(total(r.close))} |`,
  );
  if (r.during.documentRewrites === 0) {
    // No compaction ran: it comes once the journal passes max(1 MiB, half the document).
    const journalPer = r.during.journal / Math.max(1, r.deliveries);
    const every = Math.max(COMPACTION_MIN_BYTES, r.documentBytes / 2) / journalPer;
    amortised.push(
      `- ${length.toLocaleString('en-US')}-character prompt: a compaction rewrites the ${bytes(r.documentBytes)} document about every ${Math.round(every).toLocaleString('en-US')} deliveries, ${Math.round(r.documentBytes / every)} B per delivery amortised: ${Math.round(journalPer + r.documentBytes / every)} B per delivery in all.`,
    );
  }
}
if (amortised.length > 0) console.log(`\nWith compaction amortised (derived from the figures above):\n${amortised.join('\n')}`);

const scenarioRows = Array.from({ length: SCENARIO_TASKS }, (_, i) => seededRow(i + 1, promptOf(60_000, i + 1), 0));
const scenario = await runService(scenarioRows, SCENARIO_HOURS * 60);
console.log(
  `\n(2) Growth: ${SCENARIO_TASKS} tasks with 60,000-character prompts every minute for ${SCENARIO_HOURS} simulated hours, from empty histories.\n`,
);
console.log('| deliveries | journal written | document written | rewrites | close writes | total written | schedule.json after close |');
console.log('|---:|---:|---:|---:|---:|---:|---:|');
console.log(
  `| ${scenario.deliveries} | ${bytes(scenario.during.journal)} | ${bytes(scenario.during.document)} | ${scenario.during.documentRewrites} | ${bytes(total(scenario.close))} | ${bytes(total(scenario.during) + total(scenario.close))} | ${bytes(scenario.documentBytes)} |`,
);

// Benchmark: the first page of the catalog (50 entries, `remote.catalog({ limit: 50 })`) from a
// service holding 10,000 tasks, with the default order, a text search, a status filter and a
// title sort, against the whole catalog (`remote.catalog()`) for comparison. Each figure is the
// time from the call to its answer, through the service's mailbox. Goal: the first page in under
// 100 ms.
import { memoryStorage } from '../src/adapters/memoryStorage.ts';
import { encodeDocument } from '../src/domain/codec/index.ts';
import type { CatalogRequest } from '../src/domain/reads/catalogPage.ts';
import type { TaskRow } from '../src/domain/tasks/types.ts';
import { createScheduleService } from '../src/service.ts';
import { createFakeSessions, createManualClock } from '../src/testing.ts';
import { activeRows, fmt } from './support/domains.ts';
import { quantile } from './support/stats.ts';

const SIZE = Number(process.env.CATALOG_TASKS ?? 10_000);
const SESSIONS = 100;
const ROUNDS = 50;

// Every third task has delivered once, every fifth has ended; targets run from 30 min before
// the clock onwards, so some are overdue.
const rows: TaskRow[] = activeRows(SIZE, SESSIONS, '2030-05-31T23:30:00.000Z').map((row, i) => {
  if (i % 3 !== 0) return row;
  const receipt = {
    scheduledAt: '2030-05-31T12:00:00.000Z',
    deliveredAt: new Date(Date.parse('2030-05-31T12:00:01.000Z') + i).toISOString(),
    messageId: `m-${i}`,
    prompt: row.record.prompt,
  };
  return {
    ...row,
    ...(i % 5 === 0 ? { status: 'inactive' as const } : {}),
    lastDelivery: receipt,
    deliveryHistory: { records: [receipt], earlierRecordsUnavailable: false, earlierRecordsPruned: false },
  };
});
const storage = memoryStorage(encodeDocument({ tasks: rows, nextTaskNumber: SIZE + 1 }));
const svc = await createScheduleService({
  sessions: createFakeSessions(),
  storage,
  clock: createManualClock('2030-06-01T00:00:00.000Z'),
  logger: { warn() {}, error() {} },
});

async function time(call: () => Promise<unknown>): Promise<{ median: number; p99: number; max: number; answer: unknown }> {
  let answer: unknown;
  for (let i = 0; i < 5; i++) answer = await call();
  const samples: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = performance.now();
    answer = await call();
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  return { median: quantile(samples, 0.5), p99: quantile(samples, 0.99), max: samples.at(-1) ?? Number.NaN, answer };
}

const cases: Array<[string, CatalogRequest | undefined]> = [
  ['first page, next target (default)', { limit: 50 }],
  ['first page, text search "project 12"', { limit: 50, filter: { text: 'project 12' } }],
  ['first page, status overdue', { limit: 50, filter: { status: 'overdue' } }],
  ['first page, one Session, by title', { limit: 50, filter: { sessionId: 'session-7' }, sort: 'title' }],
  ['first page, by last delivery', { limit: 50, sort: 'lastDelivery' }],
  ['whole catalog, no options (for comparison)', undefined],
];

console.log(
  `${SIZE.toLocaleString('en')} tasks (a fifth of every third ended, a third delivered once) over ${SESSIONS} Sessions in memory storage, ${ROUNDS} timed calls each, Node ${process.version}`,
);
console.log('');
console.log('| request | entries | total | median ms | p99 ms | max ms |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const [label, request] of cases) {
  const r = await time(() => (request === undefined ? svc.remote.catalog() : svc.remote.catalog(request)));
  const answer = r.answer as { entries?: unknown[]; total?: number; code?: string } | unknown[];
  if (!Array.isArray(answer) && answer.code !== undefined) throw new Error(`${label}: refused with ${answer.code}`);
  const entries = Array.isArray(answer) ? answer.length : (answer.entries?.length ?? 0);
  const total = Array.isArray(answer) ? answer.length : (answer.total ?? 0);
  console.log(`| ${label} | ${entries} | ${total.toLocaleString('en')} | ${fmt(r.median, 2)} | ${fmt(r.p99, 2)} | ${fmt(r.max, 2)} |`);
}
console.log('');
console.log('goal: the first page in < 100 ms');
await svc.close();

// Benchmark (c): restoring 100k active tasks from schedule.json — from createScheduleService to a
// running service with every task actor spawned — and the heap it holds, in total and per task.
import { jsonFileStorage } from '../src/adapters/jsonFileStorage.ts';
import { createScheduleService } from '../src/service.ts';
import { createFakeSessions, createManualClock } from '../src/testing.ts';
import { activeRows, fmt, heapMb, writeDomain } from './support/domains.ts';

const SIZE = Number(process.env.RESTORE_TASKS ?? 100_000);
const SESSIONS = 1_000;

const { path, cleanup } = writeDomain(activeRows(SIZE, SESSIONS, '2031-01-01T00:00:00.000Z'));
const before = heapMb();
const t0 = performance.now();
const svc = await createScheduleService({
  sessions: createFakeSessions(),
  storage: jsonFileStorage({ path }),
  clock: createManualClock('2030-06-01T00:00:00.000Z'),
  logger: { warn() {}, error() {} },
});
const restoreMs = performance.now() - t0;
const after = heapMb();
const list = await svc.remote.list({ sessionId: 'session-1' });
if ('code' in list) throw new Error(`remote.list failed: ${list.code}: ${list.message}`);
const c0 = performance.now();
await svc.close();
const closeMs = performance.now() - c0;
cleanup();

console.log(
  `${SIZE.toLocaleString('en')} active tasks (five kinds) over ${SESSIONS.toLocaleString('en')} Sessions, read from schedule.json`,
);
console.log('');
console.log('| measure | value |');
console.log('|---|---:|');
console.log(`| restore (open, decode, spawn every actor) | ${fmt(restoreMs, 0)} ms |`);
console.log(`| heap used after restore | ${fmt(after, 0)} MB |`);
console.log(`| heap added by the service | ${fmt(after - before, 0)} MB |`);
console.log(`| heap per task | ${fmt(((after - before) * 2 ** 20) / SIZE, 0)} B |`);
console.log(`| close | ${fmt(closeMs, 0)} ms |`);
console.log('');
console.log(`goal: < 2 s and < 300 MB; a Session sample lists ${list.length} tasks`);

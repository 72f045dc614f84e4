// Benchmark (c): restoring a large schedule — from createScheduleService to a running service —
// and the memory it holds. Three cases, each in a fresh child process so heap and RSS figures do
// not leak between them: 100k active tasks of five kinds read from schedule.json with passivation
// on (the default one-hour horizon; every target lies beyond it, so no task actor is spawned) and
// off (`passivationHorizonMs: null`: every task actor is spawned), and 1,000,000 one-shot tasks
// without history in memory storage with passivation on. Two more processes time the storage's
// own open of each domain, the part of a restore that is not the service's. Each case counts the
// minor page faults of its restore, priced at this machine's cost of one fault. Then, beside
// pg-boss on the same PostgreSQL server, the time from a process's start until it serves and its
// RSS then, with 100,000 pending reminders (support/servingRestore.ts). RESTORE_ONLY=file or
// RESTORE_ONLY=serving runs one of the two; RESTORE_TASKS, RESTORE_BIG_TASKS, RESTORE_PENDING and
// RESTORE_SERVING_RUNS set the sizes.
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { jsonFileStorage } from '../src/adapters/jsonFileStorage.ts';
import { MemoryStorage } from '../src/adapters/memoryStorage.ts';
import type { TaskRow } from '../src/domain/tasks/types.ts';
import type { ScheduleStorage } from '../src/ports.ts';
import { createScheduleService } from '../src/service.ts';
import { createFakeSessions, createManualClock } from '../src/testing.ts';
import { runnable } from './support/compiled.ts';
import { activeRows, fmt, heapMb, writeDomain } from './support/domains.ts';
import { faultCostUs, minorFaults } from './support/pageFaults.ts';
import { measureServing, printServing } from './support/servingRestore.ts';

const SIZE = Number(process.env.RESTORE_TASKS ?? 100_000);
const BIG = Number(process.env.RESTORE_BIG_TASKS ?? 1_000_000);
const SESSIONS = 1_000;
const NOW = '2030-06-01T00:00:00.000Z';
const FIRST_TARGET = '2031-01-01T00:00:00.000Z';

interface CaseResult {
  readonly name: string;
  readonly tasks: number;
  readonly passivation: boolean;
  readonly restoreMs: number;
  readonly heapMb: number;
  readonly heapAddedMb: number;
  readonly rssMb: number;
  readonly rssAddedMb: number;
  /** Minor page faults during the restore: fresh memory the kernel mapped. */
  readonly faults: number;
  readonly closeMs: number;
  readonly listed: number;
}

const CASES = ['100k-on', '100k-off', '1m-on'] as const;
type CaseName = (typeof CASES)[number];
/** The storage open alone, for the share of the restore that is the storage's. */
const STORAGE_CASES = ['100k-storage', '1m-storage'] as const;
type StorageCaseName = (typeof STORAGE_CASES)[number];

const rssMb = (): number => process.memoryUsage().rss / 2 ** 20;

/** One-shot rows (kind `at`) without delivery history, targets one second apart. */
function oneShotRows(n: number, sessions: number, firstTarget: string): TaskRow[] {
  const base = Date.parse(firstTarget);
  const rows: TaskRow[] = [];
  for (let i = 1; i <= n; i++) {
    rows.push({
      sessionId: `session-${i % sessions}`,
      status: 'active',
      record: {
        id: `sch_${i}`,
        kind: 'at',
        title: `Task ${i}`,
        prompt: `Reminder ${i}.`,
        scheduledAt: new Date(base + i * 1_000).toISOString(),
      },
    } as TaskRow);
  }
  return rows;
}

/** The storage of a case: the 1M one-shots in memory storage, else 100k tasks in schedule.json. */
function storageOf(big: boolean): { storage: ScheduleStorage; tasks: number; cleanup: () => void } {
  if (big) {
    return {
      storage: new MemoryStorage({ version: 1, nextTaskNumber: BIG + 1, tasks: oneShotRows(BIG, SESSIONS, FIRST_TARGET) }),
      tasks: BIG,
      cleanup: () => {},
    };
  }
  const domain = writeDomain(activeRows(SIZE, SESSIONS, FIRST_TARGET));
  return { storage: jsonFileStorage({ path: domain.path }), tasks: SIZE, cleanup: domain.cleanup };
}

async function runStorageCase(name: StorageCaseName): Promise<number> {
  const { storage, cleanup } = storageOf(name === '1m-storage');
  const t0 = performance.now();
  await storage.open();
  const ms = performance.now() - t0;
  await storage.close();
  cleanup();
  return ms;
}

async function runCase(name: CaseName): Promise<CaseResult> {
  const { storage, tasks, cleanup } = storageOf(name === '1m-on');
  const passivation = name !== '100k-off';
  const heapBefore = heapMb();
  const rssBefore = rssMb();
  const faultsBefore = minorFaults();
  const t0 = performance.now();
  const svc = await createScheduleService({
    sessions: createFakeSessions(),
    storage,
    clock: createManualClock(NOW),
    logger: { warn() {}, error() {} },
    config: passivation ? {} : { passivationHorizonMs: null },
  });
  const restoreMs = performance.now() - t0;
  const faults = minorFaults() - faultsBefore;
  const rssAfter = rssMb();
  const heapAfter = heapMb();
  const list = await svc.remote.list({ sessionId: 'session-1' });
  if ('code' in list) throw new Error(`remote.list failed: ${list.code}: ${list.message}`);
  const c0 = performance.now();
  await svc.close();
  const closeMs = performance.now() - c0;
  cleanup();
  return {
    name,
    tasks,
    passivation,
    restoreMs,
    heapMb: heapAfter,
    heapAddedMb: heapAfter - heapBefore,
    rssMb: rssAfter,
    rssAddedMb: rssAfter - rssBefore,
    faults,
    closeMs,
    listed: list.length,
  };
}

const only = process.env.RESTORE_CASE;
if (only !== undefined) {
  if ((STORAGE_CASES as readonly string[]).includes(only)) console.log(JSON.stringify(await runStorageCase(only as StorageCaseName)));
  else if ((CASES as readonly string[]).includes(only)) console.log(JSON.stringify(await runCase(only as CaseName)));
  else throw new Error(`unknown restore case ${only}; known: ${[...CASES, ...STORAGE_CASES].join(', ')}`);
} else {
  const load = (): string =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
  console.log(`load average ${load()} at the start`);
  if (process.env.RESTORE_ONLY !== 'serving') restoreFromFiles();
  if (process.env.RESTORE_ONLY !== 'file') printServing(await measureServing());
  console.log(`load average ${load()} at the end`);
}

/** The cases above, each in a child process, and their table. */
function restoreFromFiles(): void {
  const self = fileURLToPath(import.meta.url);
  const inChild = (name: string): unknown => {
    const child = spawnSync(process.execPath, ['--expose-gc', '--max-old-space-size=4096', ...runnable(self)], {
      env: { ...process.env, RESTORE_CASE: name },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 1 << 20,
    });
    if (child.status !== 0) throw new Error(`restore case ${name} failed with exit code ${child.status}`);
    return JSON.parse(child.stdout.trim().split('\n').at(-1) ?? 'null');
  };
  const storageMs = { small: inChild('100k-storage') as number, big: inChild('1m-storage') as number };
  const results = CASES.map((name) => inChild(name) as CaseResult);
  const faultUs = faultCostUs();
  const source = (r: CaseResult): string => (r.name === '1m-on' ? 'one-shots, memory storage' : 'five kinds, schedule.json');
  console.log(`active tasks over ${SESSIONS.toLocaleString('en')} Sessions, every target beyond the one-hour horizon`);
  console.log('');
  console.log(
    '| tasks | source | passivation | restore | of which storage open | heap used | heap added | RSS | RSS added | page faults (their time) | close |',
  );
  console.log('|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    const opened = r.name === '1m-on' ? storageMs.big : storageMs.small;
    console.log(
      `| ${r.tasks.toLocaleString('en')} | ${source(r)} | ${r.passivation ? 'on' : 'off'} | ${fmt(r.restoreMs, 0)} ms | ${fmt(opened, 0)} ms | ` +
        `${fmt(r.heapMb, 0)} MB | ${fmt(r.heapAddedMb, 0)} MB | ${fmt(r.rssMb, 0)} MB | ${fmt(r.rssAddedMb, 0)} MB | ` +
        `${r.faults.toLocaleString('en')} (${fmt((r.faults * faultUs) / 1000, 0)} ms) | ${fmt(r.closeMs, 0)} ms |`,
    );
  }
  console.log('');
  console.log('goals: 100k (passivation on) < 0.8 s and < 120 MB; 1M one-shots < 6 s and < 1 GB');
  console.log(`a Session sample lists ${results.map((r) => r.listed).join(' / ')} tasks`);
  console.log('storage open: the storage alone opening (reading and decoding) the same domain, in a process of its own');
  console.log(
    `page faults: the minor page faults of the restore (fresh memory the kernel mapped), and their time at ${faultUs.toFixed(1)} µs a fault, this machine's cost measured in the parent process`,
  );
}

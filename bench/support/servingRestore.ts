// The restore benchmark's start-to-serving cases: 100,000 pending one-shot reminders (over 1,000
// Sessions, due evenly over the next 30 days, so a few hundred within the one-hour passivation
// horizon) in a PostgreSQL schema of postgresStorage, and the same number of jobs with a start time
// in a pg-boss schema on the same server; then, alternating, a fresh process for each comes up
// and answers one create (servingChild.ts), ours from the package built first (`npm run build`,
// dist/ of this checkout). Schemas `cluster_bench_<run>_…` and
// `pgboss_bench_<run>_…`, dropped at the end.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TaskRow } from '../../src/domain/tasks/types.ts';
import { envNumber } from './benchEnv.ts';
import { adminPool, BENCH_URL, benchSchema, dropSchemas } from './clusterDb.ts';
import { seedRows } from './clusterSeed.ts';
import { runnable } from './compiled.ts';
import { fmt } from './domains.ts';
import type { ServingFigures, ServingOptions } from './servingChild.ts';
import { median } from './stats.ts';

export const PENDING = envNumber('RESTORE_PENDING', 100_000);
export const SERVING_RUNS = envNumber('RESTORE_SERVING_RUNS', 3);
const SESSIONS = 1_000;
const QUEUE = 'reminders';
const SPREAD_MS = 30 * 86_400_000;

const self = fileURLToPath(import.meta.url);
const childPath = fileURLToPath(new URL(`./servingChild${extname(self)}`, import.meta.url));

/** The instant of pending reminder i: evenly over the next 30 days from two minutes ahead. */
const dueAt = (start: number, i: number): Date => new Date(start + 120_000 + Math.floor((i * SPREAD_MS) / PENDING));

async function seedOurs(schema: string, start: number): Promise<void> {
  const pool = adminPool();
  try {
    const rows = Array.from(
      { length: PENDING },
      (_, i) =>
        ({
          sessionId: `session-${i % SESSIONS}`,
          status: 'active',
          record: {
            id: '',
            kind: 'at',
            title: `Reminder ${i}`,
            prompt: `Follow up on request ${i}.`,
            scheduledAt: dueAt(start, i).toISOString(),
          },
        }) as TaskRow,
    );
    await seedRows(pool, schema, rows);
  } finally {
    await pool.end();
  }
}

async function seedBoss(schema: string, start: number): Promise<void> {
  const { default: PgBoss } = await import('pg-boss');
  const boss = new PgBoss({ connectionString: BENCH_URL, schema, max: 3, supervise: false, schedule: false });
  boss.on('error', () => undefined);
  await boss.start();
  try {
    await boss.createQueue(QUEUE);
    for (let at = 0; at < PENDING; at += 5_000)
      await boss.insert(
        Array.from({ length: Math.min(5_000, PENDING - at) }, (_, k) => ({
          name: QUEUE,
          data: { sessionId: `session-${(at + k) % SESSIONS}`, title: `Reminder ${at + k}`, prompt: `Follow up on request ${at + k}.` },
          startAfter: dueAt(start, at + k),
        })),
      );
  } finally {
    await boss.stop({ graceful: false, wait: true });
  }
}

/** Builds dist/ of the checkout the package name resolves to here: the files the serving child imports. */
function buildPackage(): void {
  const root = dirname(createRequire(import.meta.url).resolve('agent-schedule/package.json'));
  const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (build.status !== 0) throw new Error(`npm run build failed in ${root}: exit code ${build.status}`);
}

function serveOnce(options: ServingOptions): ServingFigures {
  const child = spawnSync(process.execPath, [...runnable(childPath), JSON.stringify(options)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (child.status !== 0) throw new Error(`${options.system} did not come up: exit code ${child.status}`);
  return JSON.parse(child.stdout.trim().split('\n').at(-1) ?? 'null') as ServingFigures;
}

export interface ServingResults {
  readonly ours: ServingFigures[];
  readonly boss: ServingFigures[];
  readonly seedMs: number;
}

export async function measureServing(): Promise<ServingResults> {
  const ours = benchSchema('serving');
  const bossSchema = benchSchema('serving', 'pgboss_bench');
  const admin = adminPool();
  try {
    buildPackage();
    const t0 = performance.now();
    const start = Date.now();
    await seedOurs(ours, start);
    await seedBoss(bossSchema, start);
    const seedMs = performance.now() - t0;
    const results: ServingResults = { ours: [], boss: [], seedMs };
    for (let run = 0; run < SERVING_RUNS; run++) {
      results.ours.push(serveOnce({ system: 'postgresStorage', url: BENCH_URL, schema: ours, queue: QUEUE }));
      results.boss.push(serveOnce({ system: 'pg-boss', url: BENCH_URL, schema: bossSchema, queue: QUEUE }));
    }
    return results;
  } finally {
    await dropSchemas(admin);
    await admin.end();
  }
}

export function printServing(r: ServingResults): void {
  const n = PENDING.toLocaleString('en');
  console.log('');
  console.log(
    `start to serving with ${n} pending one-shot reminders in PostgreSQL (over ${SESSIONS.toLocaleString('en')} Sessions, due evenly over the next 30 days): a fresh process comes up and answers one create (schedule_create on postgresStorage; pg-boss started and a \`send\` with a start time answered); ${r.ours.length} runs each, alternating; seeding both took ${fmt(r.seedMs / 1000, 1)} s`,
  );
  console.log('');
  console.log('| system | process start → serving, median (range) | RSS at serving, median (range) |');
  console.log('|---|---:|---:|');
  const row = (name: string, xs: readonly ServingFigures[]): void => {
    const ms = xs.map((x) => x.servingMs);
    const rss = xs.map((x) => x.rssMb);
    console.log(
      `| ${name} | ${fmt(median(ms), 0)} ms (${fmt(Math.min(...ms), 0)}–${fmt(Math.max(...ms), 0)}) | ${fmt(median(rss), 0)} MB (${fmt(Math.min(...rss), 0)}–${fmt(Math.max(...rss), 0)}) |`,
    );
  };
  row('postgresStorage', r.ours);
  row('pg-boss', r.boss);
  console.log('');
  console.log(`goal: postgresStorage ready in < 300 ms and < 120 MB RSS with ${n} pending`);
}

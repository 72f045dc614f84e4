// The stale-lock race between processes: two worker processes (lockRaceChild.ts) are told in the
// same instant to open a fresh domain whose lock file names a process that has exited. Exactly
// one may open; it commits a few tasks, both close, and the domain must hold every task the
// opener acknowledged. A round where both open is a double open (two owners of one domain, which
// loses acknowledged writes); a round where neither opens is a failed take-over.
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { loadDomainFiles, lockPathFor } from '../../src/adapters/loadDomain.ts';
import { encodeDocument } from '../../src/domain/codec/index.ts';
import { row } from './fixtures.ts';

const CHILD = join(import.meta.dirname, 'lockRaceChild.ts');
const ROOT = join(import.meta.dirname, '..', '..');
const ROWS = 5;

/** What a run of rounds saw. */
export interface LockRaceFigures {
  rounds: number;
  /** Rounds where both workers opened the domain. */
  doubleOpens: number;
  /** Rounds where neither opened. */
  noOpens: number;
  /** Tasks acknowledged by an opener and missing afterwards. */
  lostWrites: number;
  /** Refusals seen, by error name and code. */
  refusals: Record<string, number>;
}

interface Worker {
  readonly child: ChildProcessWithoutNullStreams;
  next(): Promise<Record<string, unknown>>;
  send(command: Record<string, unknown>): void;
}

function startWorker(): Worker {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  const waiting: Array<(answer: Record<string, unknown>) => void> = [];
  const early: Array<Record<string, unknown>> = [];
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  createInterface({ input: child.stdout }).on('line', (line) => {
    const answer = JSON.parse(line) as Record<string, unknown>;
    const resolve = waiting.shift();
    if (resolve === undefined) early.push(answer);
    else resolve(answer);
  });
  child.on('exit', (code) => {
    if (code !== 0)
      for (const resolve of waiting.splice(0)) resolve({ e: 'failed', error: `worker exited ${code}: ${stderr.slice(-2000)}` });
  });
  return {
    child,
    send: (command) => void child.stdin.write(`${JSON.stringify(command)}\n`),
    next: () => {
      const answer = early.shift();
      return answer === undefined ? new Promise((resolve) => waiting.push(resolve)) : Promise.resolve(answer);
    },
  };
}

/** A pid that belonged to a process which has exited. */
const exitedPid = (): number => spawnSync('true').pid ?? 99_999_999;

/** Runs `rounds` race rounds; resolves with the figures (it never throws on a double open: the caller judges). */
export async function runLockRace(options: { rounds: number; seed: number; onRound?: (line: string) => void }): Promise<LockRaceFigures> {
  const workers = [startWorker(), startWorker()];
  const figures: LockRaceFigures = { rounds: 0, doubleOpens: 0, noOpens: 0, lostWrites: 0, refusals: {} };
  const base = mkdtempSync(join(tmpdir(), 'agent-schedule-lock-race-'));
  try {
    for (let round = 1; round <= options.rounds; round++) {
      const dir = join(base, String(round));
      const path = join(dir, 'schedule.json');
      mkdirSync(dir, { recursive: true });
      writeFileSync(path, encodeDocument({ tasks: [row(1)], nextTaskNumber: 2 }));
      writeFileSync(lockPathFor(path), JSON.stringify({ pid: exitedPid(), token: `dead-${round}` }));
      for (const [i, worker] of workers.entries()) {
        worker.send({ cmd: 'open', path, seed: options.seed * 1000 + round * 2 + i, first: 10 + i * 100, rows: ROWS });
      }
      const answers = await Promise.all(workers.map((worker) => worker.next()));
      for (const answer of answers) {
        if (answer.e === 'failed') throw new Error(`lock race round ${round}: ${String(answer.error)}`);
        if (answer.e === 'refused') {
          const key = `${String(answer.name)} ${String(answer.code)}`;
          figures.refusals[key] = (figures.refusals[key] ?? 0) + 1;
        }
      }
      for (const worker of workers) worker.send({ cmd: 'close' });
      await Promise.all(workers.map((worker) => worker.next()));
      const opened = answers.filter((answer) => answer.e === 'opened');
      if (opened.length === 2) figures.doubleOpens++;
      if (opened.length === 0) figures.noOpens++;
      const held = new Set((await loadDomainFiles(path)).state.snapshot().tasks.map((task) => task.record.id));
      let lost = 0;
      for (const answer of opened) for (const id of answer.acked as string[]) if (!held.has(id)) lost++;
      figures.lostWrites += lost;
      figures.rounds++;
      options.onRound?.(`round ${round}: ${opened.length} opened, ${lost} acknowledged writes lost`);
      rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    for (const worker of workers) worker.child.stdin.end();
    rmSync(base, { recursive: true, force: true });
  }
  return figures;
}

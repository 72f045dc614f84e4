// Crash trials: start the child (crashChild.ts) on a domain, SIGKILL it at a random moment, then
// check the domain: it opens, holds every acknowledged batch, holds nothing never attempted, and
// is exactly the domain after some prefix of the workload. Trials continue on the same domain.
// One trial in five kills the child while it starts or opens the domain. Every third trial also appends a torn (partial) line to the journal, as a power loss mid-append
// would leave; odd trials verify by a read-only load (so the next child meets the dead child's
// lock and any torn tail), even ones by opening and closing the storage (lock takeover, compaction).
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { jsonFileStorage } from '../../src/adapters/jsonFileStorage.ts';
import { journalPathFor, loadDomainFiles } from '../../src/adapters/loadDomain.ts';
import { encodeBatch } from '../../src/domain/codec/index.ts';
import { batchesIn, batchFor, expectedAfter, sortById } from './crashWorkload.ts';

const CHILD = join(import.meta.dirname, 'crashChild.ts');
const ROOT = join(import.meta.dirname, '..', '..');

/** What a run of trials saw. */
export interface CrashSummary {
  trials: number;
  acknowledged: number;
  /** Trials killed before the child acknowledged anything. */
  killedBeforeAck: number;
  /** Trials killed while the child was still starting or opening the domain. */
  killedBeforeOpen: number;
  /** Trials whose journal ended in a torn line when checked (injected or left by the kill). */
  tornTails: number;
  /** Batches found durable although never acknowledged (attempted, in flight at the kill). */
  unacknowledgedDurable: number;
  lastBatch: number;
}

/** A small deterministic PRNG (mulberry32). */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface ChildRun {
  start: number;
  maxAttempt: number;
  maxAck: number;
  acks: number;
}

/** Kills the child `killAfterMs` after it opened the domain, or (when `early`) after it was spawned. */
function runChild(path: string, minBytes: number, killAfterMs: number, early: boolean): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, path, String(minBytes)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const run: ChildRun = { start: -1, maxAttempt: 0, maxAck: 0, acks: 0 };
    if (early) setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    let buffered = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => (stderr += chunk));
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const [word, value] = line.split(' ');
        const n = Number(value);
        if (word === 'start') {
          run.start = n;
          if (!early) setTimeout(() => child.kill('SIGKILL'), killAfterMs);
        } else if (word === 'attempt') run.maxAttempt = Math.max(run.maxAttempt, n);
        else if (word === 'ack') {
          if (n !== run.maxAck + 1 && run.maxAck !== 0) reject(new Error(`acks out of order: ${n} after ${run.maxAck}`));
          run.maxAck = n;
          run.acks++;
        }
      }
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`child ended without being killed (code ${code}): ${stderr}`));
      else resolve(run);
    });
  });
}

function check(condition: boolean, message: string): void {
  if (!condition) throw new Error(`crash trial check failed: ${message}`);
}

/** Runs `trials` kill-and-reopen trials on a domain in `dir`; throws on the first violation. */
export async function runCrashTrials(dir: string, trials: number, seed: number, onTrial?: (line: string) => void): Promise<CrashSummary> {
  const path = join(dir, 'schedule.json');
  const rand = random(seed);
  const summary: CrashSummary = {
    trials: 0,
    acknowledged: 0,
    killedBeforeAck: 0,
    killedBeforeOpen: 0,
    tornTails: 0,
    unacknowledgedDurable: 0,
    lastBatch: 0,
  };
  let known = 0;
  for (let trial = 1; trial <= trials; trial++) {
    const minBytes = 1024 + Math.floor(rand() * 16_384);
    const early = rand() < 0.2;
    const run = await runChild(path, minBytes, Math.floor(rand() * (early ? 400 : 120)), early);
    if (run.start < 0) summary.killedBeforeOpen++;
    check(
      run.start < 0 || run.start === known,
      `trial ${trial}: the child resumed after batch ${run.start}, but batch ${known} was the last durable one`,
    );
    if (trial % 3 === 0)
      appendFileSync(journalPathFor(path), encodeBatch(batchFor(run.maxAttempt + 1)).slice(0, 1 + Math.floor(rand() * 300)));

    const loaded = await loadDomainFiles(path);
    if (loaded.journal.fileLength > loaded.journal.goodLength) summary.tornTails++;
    let domain = loaded.state.snapshot();
    if (trial % 2 === 0) {
      const storage = jsonFileStorage({ path });
      domain = await storage.open();
      await storage.close();
    }
    const k = batchesIn(domain);
    const ackFloor = Math.max(run.maxAck, known);
    check(k >= ackFloor, `trial ${trial}: batch ${ackFloor} was acknowledged but the domain ends at batch ${k}`);
    check(k <= Math.max(run.maxAttempt, known), `trial ${trial}: batch ${k} is present but only ${run.maxAttempt} were attempted`);
    const expected = expectedAfter(k);
    const actual = { tasks: sortById(domain.tasks), nextTaskNumber: domain.nextTaskNumber };
    check(isDeepStrictEqual(actual, expected), `trial ${trial}: the domain is not the state after batches 1..${k}`);

    summary.trials++;
    summary.acknowledged += run.acks;
    if (run.acks === 0) summary.killedBeforeAck++;
    summary.unacknowledgedDurable += k - ackFloor;
    summary.lastBatch = k;
    known = k;
    onTrial?.(`trial ${trial}: resumed at ${run.start}, attempted up to ${run.maxAttempt}, acknowledged up to ${run.maxAck}, durable ${k}`);
  }
  return summary;
}

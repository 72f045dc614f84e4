// Power-loss trials of the JSON storage. A SIGKILL leaves the page cache to the kernel, so it never
// shows a missing fsync; a power loss does. Here the storage runs on an in-memory file system
// (powerLossFs.ts) that knows which bytes and directory entries were fsynced. A seeded workload —
// two lives of the storage, each opening the domain, committing numbered batches with several in
// flight (group commits; the journal folded into schedule.json every few KiB), and closing — is
// recorded, and before every operation that changes anything a crash image is taken: the strict
// one (only fsynced bytes under fsynced entries) and a few mixed ones (each entry and each file
// kept as durable or as current, unsynced appended bytes cut anywhere). Each image is opened as a
// restarted Host would open it, on a new boot: it must open; it must hold every batch acknowledged
// before the crash and nothing never attempted, and be exactly the domain after a prefix of the
// batches; and it must go on working (one more batch, close, reopen). A removed fsync — of the
// journal, of the directory, of the new document — can be planted through the seam, so the checker
// can be shown to catch each one.
import { isDeepStrictEqual } from 'node:util';
import type { FileHandleLike, FileSystem } from '../../src/adapters/fsSeam.ts';
import { jsonFileStorage } from '../../src/adapters/jsonFileStorage.ts';
import type { CommitBatch, ScheduleStorage } from '../../src/ports.ts';
import { random } from '../storage/crashTrial.ts';
import { batchesIn, batchFor, expectedAfter, sortById } from '../storage/crashWorkload.ts';
import { MemoryFs } from './powerLossFs.ts';

/** An fsync a planted bug leaves out. */
export type RemovedFsync = 'journal' | 'directory' | 'document';

/** Options of {@link runPowerLoss}. */
export interface PowerLossOptions {
  readonly seed: number;
  /** Batches per life of the storage (two lives). */
  readonly batches: number;
  /** Most commits in flight at once. */
  readonly window: number;
  /** Journal bytes before it is folded into schedule.json. */
  readonly compactionMinBytes: number;
  /** Mixed images per crash point, besides the strict one. */
  readonly mixedImages: number;
  /** An fsync left out of every write through the seam (a planted bug the check must catch). */
  readonly removedFsync?: RemovedFsync;
}

/** What a run saw. */
export interface PowerLossFigures {
  crashPoints: number;
  images: number;
  /** Images whose domain opened (all of them, unless the check failed). */
  opened: number;
  /** Acknowledged batches checked, summed over the images. */
  acknowledgedChecked: number;
  /** Images holding batches that were in flight, not yet acknowledged. */
  unacknowledgedKept: number;
  /** Images that failed a check, and the first few problems. */
  failures: number;
  problems: string[];
}

const DIR = '/data';
const PATH = `${DIR}/schedule.json`;

interface CrashPoint {
  readonly images: MemoryFs[];
  /** The highest batch acknowledged before this point (every lower one too). */
  readonly acknowledged: number;
  /** The highest batch submitted before this point. */
  readonly attempted: number;
  readonly where: string;
}

/** The seam without one kind of fsync: the planted bug. */
function withoutFsync(inner: FileSystem, removed: RemovedFsync): FileSystem {
  const skips = (path: string, flags: string | number): boolean =>
    removed === 'journal' ? path.endsWith('.journal') : removed === 'directory' ? flags === 'r' : /\.tmp-/.test(path);
  return {
    readFile: (path) => inner.readFile(path),
    rename: (from, to) => inner.rename(from, to),
    unlink: (path) => inner.unlink(path),
    mkdir: (path) => inner.mkdir(path),
    link: (from, to) => inner.link(from, to),
    open: async (path, flags) => {
      const handle = await inner.open(path, flags);
      if (!skips(path, flags)) return handle;
      const planted: FileHandleLike = {
        write: (buffer, offset, length, position) => handle.write(buffer, offset, length, position),
        truncate: (length) => handle.truncate(length),
        close: () => handle.close(),
        sync: async () => undefined,
      };
      return planted;
    },
  };
}

const seededDelay = (rand: () => number) => async () => {
  for (let hops = Math.floor(rand() * 3); hops > 0; hops--) await new Promise((resolve) => setImmediate(resolve));
};

/**
 * Commits batches `first`..`last` (by number) keeping at most `window()` commits in flight, and
 * reports each number as it is attempted and as its commit is acknowledged.
 */
export async function commitWindowed(
  storage: ScheduleStorage,
  first: number,
  last: number,
  batchAt: (i: number) => CommitBatch,
  window: () => number,
  progress: { attempted(i: number): void; acknowledged(i: number): void },
): Promise<void> {
  const inFlight = new Set<Promise<void>>();
  for (let i = first; i <= last; i++) {
    while (inFlight.size >= window()) await Promise.race(inFlight);
    progress.attempted(i);
    const commit: Promise<void> = storage.commit(batchAt(i)).then(() => {
      progress.acknowledged(i);
      inFlight.delete(commit);
    });
    inFlight.add(commit);
  }
  await Promise.all(inFlight);
}

/** Runs the workload once, taking the crash images. */
async function record(options: PowerLossOptions): Promise<CrashPoint[]> {
  const rand = random(options.seed);
  const memory = new MemoryFs({ delay: seededDelay(rand) });
  memory.mkdirDurable(DIR);
  const fs = options.removedFsync === undefined ? memory : withoutFsync(memory, options.removedFsync);
  const points: CrashPoint[] = [];
  let acknowledged = 0;
  let attempted = 0;
  const take = (where: string) => {
    const images = [memory.crash()];
    for (let i = 0; i < options.mixedImages; i++) images.push(memory.crash(rand));
    points.push({ images, acknowledged, attempted, where });
  };
  memory.onMutation = (mutation, path) => take(`before ${mutation} ${path}`);
  for (let life = 0; life < 2; life++) {
    const storage = jsonFileStorage({ path: PATH, fs, compaction: { minBytes: options.compactionMinBytes, ratio: 0 } });
    await storage.open();
    await commitWindowed(storage, attempted + 1, attempted + options.batches, batchFor, () => 1 + Math.floor(rand() * options.window), {
      attempted: (i) => {
        attempted = i;
      },
      acknowledged: (i) => {
        acknowledged = Math.max(acknowledged, i);
      },
    });
    await storage.close();
  }
  memory.onMutation = undefined;
  take('after the workload');
  return points;
}

const fast = async (): Promise<void> => undefined;

/** Opens one crash image as a restart would; answers the problem, if any. */
async function checkImage(image: MemoryFs, point: CrashPoint, options: PowerLossOptions, f: PowerLossFigures): Promise<string | undefined> {
  image.delay = fast;
  const compaction = { minBytes: options.compactionMinBytes, ratio: 0 };
  const storage = jsonFileStorage({ path: PATH, fs: image, compaction });
  let domain: Awaited<ReturnType<typeof storage.open>>;
  try {
    domain = await storage.open();
  } catch (error) {
    return `the domain does not open: ${(error as { code?: string }).code ?? ''} ${String((error as Error).message ?? error)}`;
  }
  f.opened++;
  const k = batchesIn(domain);
  f.acknowledgedChecked += point.acknowledged;
  if (k > point.acknowledged) f.unacknowledgedKept++;
  if (k < point.acknowledged) return `batch ${point.acknowledged} was acknowledged, but the image holds batches up to ${k} only`;
  if (k > point.attempted) return `the image holds batch ${k}, but only ${point.attempted} were attempted`;
  if (!isDeepStrictEqual({ tasks: sortById(domain.tasks), nextTaskNumber: domain.nextTaskNumber }, expectedAfter(k)))
    return `the image is not the domain after batches 1..${k}`;
  try {
    await storage.commit(batchFor(k + 1));
    await storage.close();
    const again = jsonFileStorage({ path: PATH, fs: image, compaction });
    const reopened = await again.open();
    await again.close();
    if (!isDeepStrictEqual({ tasks: sortById(reopened.tasks), nextTaskNumber: reopened.nextTaskNumber }, expectedAfter(k + 1)))
      return `after one more batch and a reopen, the domain is not the one after batches 1..${k + 1}`;
  } catch (error) {
    return `the restarted domain does not go on working: ${String(error)}`;
  }
  return undefined;
}

/** Runs the workload, crashes it at every point and checks every image. */
export async function runPowerLoss(options: PowerLossOptions): Promise<PowerLossFigures> {
  const points = await record(options);
  const f: PowerLossFigures = {
    crashPoints: points.length,
    images: 0,
    opened: 0,
    acknowledgedChecked: 0,
    unacknowledgedKept: 0,
    failures: 0,
    problems: [],
  };
  for (const [n, point] of points.entries()) {
    for (const [m, image] of point.images.entries()) {
      f.images++;
      const problem = await checkImage(image, point, options, f);
      if (problem === undefined) continue;
      f.failures++;
      if (f.problems.length < 5)
        f.problems.push(`crash point ${n} (${point.where}), ${m === 0 ? 'strict' : `mixed ${m}`} image: ${problem}`);
    }
  }
  return f;
}

// The crash test's child process: opens the domain at argv[2] (compacting past argv[3] journal
// bytes), continues the workload after the last batch it finds, and commits forever with up to
// eight batches in flight, printing `attempt i` before each commit and `ack i` once it resolved.
// The parent kills it with SIGKILL at a random moment. Run with `node --import tsx`.
import { jsonFileStorage } from '../../src/adapters/jsonFileStorage.ts';
import { batchesIn, batchFor } from './crashWorkload.ts';

const WINDOW = 8;
const [path, minBytes] = process.argv.slice(2);
if (path === undefined) throw new Error('usage: crashChild.ts <schedule.json path> [compaction min bytes]');

const storage = jsonFileStorage({ path, compaction: { minBytes: Number(minBytes ?? 4096), ratio: 0 } });
const domain = await storage.open();
let next = batchesIn(domain) + 1;
let inflight = 0;
process.stdout.write(`start ${next - 1}\n`);

function pump(): void {
  while (inflight < WINDOW) {
    const i = next++;
    inflight++;
    process.stdout.write(`attempt ${i}\n`);
    storage.commit(batchFor(i)).then(
      () => {
        process.stdout.write(`ack ${i}\n`);
        inflight--;
        pump();
      },
      (error: unknown) => {
        process.stderr.write(`commit ${i} failed: ${String(error)}\n`);
        process.exit(3);
      },
    );
  }
}
pump();

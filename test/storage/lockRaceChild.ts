// The stale-lock race's worker process (run with `node --import tsx`): it waits for commands on
// stdin, one JSON line each. `open` opens the JSON storage at `path` (through a file-system seam
// that waits a seeded 0–3 macrotasks before each operation, so two workers interleave in many
// orders) and, when it opens, commits `rows` tasks numbered from `first`, answering `opened` with
// the acknowledged ids, or `refused` with the error's name and code. `close` closes it. Every answer
// is one JSON line on stdout. It exits when stdin closes.
import { createInterface } from 'node:readline';
import { type FileSystem, nodeFileSystem } from '../../src/adapters/fsSeam.ts';
import { JsonFileStorage } from '../../src/adapters/jsonFileStorage.ts';
import { random } from './crashTrial.ts';
import { row } from './fixtures.ts';

interface Command {
  readonly cmd: 'open' | 'close';
  readonly path?: string;
  readonly seed?: number;
  readonly first?: number;
  readonly rows?: number;
}

/** The real file system, with a seeded pause of 0–3 macrotasks before every operation. */
function jittered(seed: number): FileSystem {
  const rand = random(seed);
  const pause = async () => {
    for (let hops = Math.floor(rand() * 4); hops > 0; hops--) await new Promise((resolve) => setImmediate(resolve));
  };
  const wrap =
    <A extends unknown[], R>(f: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      await pause();
      return f(...args);
    };
  return {
    readFile: wrap(nodeFileSystem.readFile),
    open: wrap(nodeFileSystem.open),
    rename: wrap(nodeFileSystem.rename),
    unlink: wrap(nodeFileSystem.unlink),
    mkdir: wrap(nodeFileSystem.mkdir),
    link: wrap(nodeFileSystem.link),
  };
}

const say = (answer: Record<string, unknown>): void => void process.stdout.write(`${JSON.stringify(answer)}\n`);

let storage: JsonFileStorage | undefined;

async function handle(command: Command): Promise<void> {
  if (command.cmd === 'open') {
    const candidate = new JsonFileStorage({ path: String(command.path), fs: jittered(command.seed ?? 1) });
    try {
      await candidate.open();
    } catch (error) {
      say({ e: 'refused', name: (error as Error).name, code: (error as { code?: unknown }).code });
      return;
    }
    storage = candidate;
    const acked: string[] = [];
    const first = command.first ?? 1;
    await Promise.all(
      Array.from({ length: command.rows ?? 0 }, async (_, i) => {
        const n = first + i;
        await candidate.commit({ puts: [row(n)], deletes: [] });
        acked.push(`sch_${n}`);
      }),
    );
    say({ e: 'opened', acked });
    return;
  }
  const open = storage;
  storage = undefined;
  try {
    await open?.close();
    say({ e: 'closed' });
  } catch (error) {
    say({ e: 'closed', error: String(error) });
  }
}

let queue = Promise.resolve();
createInterface({ input: process.stdin }).on('line', (line) => {
  const command = JSON.parse(line) as Command;
  queue = queue.then(() => handle(command)).catch((error: unknown) => say({ e: 'failed', error: String(error) }));
});
process.stdin.on('close', () => void queue.then(() => process.exit(0)));

// The stalled-reader measurement (`npm run stress`; alone: `tsx test/reliability/hostStreams.ts
// [deliveries] [clients]`): a real Host child in test-clock mode, `clients` event-stream clients
// that open `/api/events` and then stop reading, and `deliveries` delivered messages each
// carrying `promptChars` characters of prompts (several recurring tasks per Session share one
// batch message when a prompt's maximum is below that), driven by moving the test clock one
// minute at a time. Prints and returns the Host's resident set before the clients and the
// deliveries, its peak (Linux `VmHWM`), and after the clients left; how many stalled clients
// the Host disconnected; and how long SIGTERM took. Fails when the peak reaches `limitMiB`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MAX_PROMPT_LENGTH } from '../../src/domain/args/fields.ts';
import { type RawConnection, stalledStream } from '../host/rawHttp.ts';
import { exitWithin, startHostProcess } from './hostProcess.ts';

export interface StalledReaderOptions {
  /** An empty folder for the Host's data. */
  readonly dataDir: string;
  /** Default 20. */
  readonly clients?: number;
  /** Delivered messages in all (default 800). */
  readonly deliveries?: number;
  /** Characters of prompts per delivered message (default 60,000). */
  readonly promptChars?: number;
  /** Sessions delivered to at each minute (default 40). */
  readonly sessions?: number;
  /** The peak resident set the Host must stay under, in MiB (default 500). */
  readonly limitMiB?: number;
}

export interface StalledReaderFigures {
  readonly clients: number;
  readonly deliveries: number;
  readonly promptChars: number;
  readonly tasks: number;
  readonly baselineMiB: number;
  readonly peakMiB: number;
  readonly afterMiB: number;
  readonly disconnected: number;
  readonly sigtermExitMs: number;
}

const round = (n: number | undefined) => Math.round((n ?? Number.NaN) * 10) / 10;
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Runs the measurement; rejects when the Host's peak resident set reaches the limit or it misbehaves. */
export async function runStalledReaders(options: StalledReaderOptions): Promise<StalledReaderFigures> {
  const clients = options.clients ?? 20;
  const deliveries = options.deliveries ?? 800;
  const promptChars = options.promptChars ?? 60_000;
  const limitMiB = options.limitMiB ?? 500;
  const sessions = Math.min(options.sessions ?? 40, deliveries);
  const minutes = Math.ceil(deliveries / sessions);
  const perSession = Math.ceil(promptChars / MAX_PROMPT_LENGTH);
  const promptLength = Math.ceil(promptChars / perSession);

  const host = await startHostProcess({ dataDir: options.dataDir });
  const stalled: RawConnection[] = [];
  try {
    for (let s = 0; s < sessions; s++) {
      for (let k = 0; k < perSession; k++) {
        const prompt = `${s}.${k} ${'p'.repeat(promptLength)}`.slice(0, promptLength);
        const r = await host.api('POST', `/api/sessions/s${s}/tools/schedule_create`, { title: `t${k}`, prompt, every_seconds: 60 });
        if (r.status !== 200) throw new Error(`create failed: ${JSON.stringify(r.body).slice(0, 300)}`);
      }
    }
    const baselineMiB = host.rssMiB() ?? Number.NaN;
    for (let i = 0; i < clients; i++) stalled.push(await stalledStream(host.url));

    for (let minute = 0; minute < minutes; minute++) {
      const r = await host.api('POST', '/api/test/clock', { advanceMs: 60_000 });
      if (r.status !== 200) throw new Error(`the clock did not move: ${JSON.stringify(r.body).slice(0, 300)}`);
    }
    const delivered = await host.api('GET', '/api/sessions/s0/transcript');
    const reminders = (delivered.body as Array<{ producer: string }>).filter((line) => line.producer === 'schedule').length;
    if (reminders !== minutes) throw new Error(`Session s0 holds ${reminders} delivered messages; expected ${minutes}`);
    const peakMiB = host.peakRssMiB() ?? Number.NaN;

    // A client the Host disconnected ends once it reads what the kernel still held for it.
    for (const connection of stalled) connection.resume();
    await Promise.race([Promise.all(stalled.map((c) => c.closed)), sleep(5_000)]);
    const disconnected = stalled.filter((c) => c.ended).length;
    for (const connection of stalled) connection.destroy();
    await sleep(2_000);
    const afterMiB = host.rssMiB() ?? Number.NaN;

    const signalled = Date.now();
    host.child.kill('SIGTERM');
    const code = await exitWithin(host, 10_000);
    if (code !== 0) throw new Error(`SIGTERM: the Host answered ${code}:\n${host.output().slice(-2_000)}`);
    const figures: StalledReaderFigures = {
      clients,
      deliveries: sessions * minutes,
      promptChars: perSession * promptLength,
      tasks: sessions * perSession,
      baselineMiB: round(baselineMiB),
      peakMiB: round(peakMiB),
      afterMiB: round(afterMiB),
      disconnected,
      sigtermExitMs: Date.now() - signalled,
    };
    if (!(peakMiB < limitMiB))
      throw new Error(`the Host's peak resident set was ${round(peakMiB)} MiB (limit ${limitMiB}): ${JSON.stringify(figures)}`);
    return figures;
  } finally {
    for (const connection of stalled) connection.destroy();
    host.kill();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-schedule-stalled-'));
  try {
    const figures = await runStalledReaders({
      dataDir,
      ...(process.argv[2] === undefined ? {} : { deliveries: Number(process.argv[2]) }),
      ...(process.argv[3] === undefined ? {} : { clients: Number(process.argv[3]) }),
    });
    console.log(JSON.stringify({ check: 'stalled stream readers', ...figures }));
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

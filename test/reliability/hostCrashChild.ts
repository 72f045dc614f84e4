// The whole-Host crash trials' child process (run with `node --import tsx`): it opens the Host's
// service stack (`openHostStack`: JSON storage, file-backed Sessions, real fsyncs) on the data
// folder it is given, on an accelerated clock, and runs the generated workload — `window` callers
// at once, so up to eight calls are in flight — until the parent kills it with SIGKILL. Every line
// on stdout is one JSON event: `clock` (the clock's anchor), `ready` (or `refused` with the error
// when the domain cannot be opened, for instance because another child owns it; the child then
// exits with code 5), `attempt` before each call and `ack` with its answer once it returned (for a
// Session stop, the ids of that Session's rows that remain), the probes' delivery and write steps,
// and `log` for anything the service logs. It stops on its own if its parent goes away.

import { type HostStack, openHostStack } from '../../host/stack.ts';
import type { ScheduleService } from '../../src/service.ts';
import { random } from '../storage/crashTrial.ts';
import { createAcceleratedClock, realNow } from './acceleratedClock.ts';
import { createProbe, emit, type Hold, probeSessions, probeStorage } from './hostCrashProbe.ts';
import { REFUSED_EXIT } from './hostCrashRun.ts';
import { nextOp, type WorkloadOp } from './hostCrashWorkload.ts';

/** What the parent passes as the one argument (JSON). */
export interface HostCrashChildOptions {
  readonly dataDir: string;
  readonly seed: number;
  /** Prefix of the titles this child writes (the trial number). */
  readonly tag: string;
  /** The simulated wall time to start at (epoch ms). */
  readonly simStart: number;
  readonly factor: number;
  readonly hold: Hold | null;
  /** Journal bytes before compaction (small values make compactions happen during the trial). */
  readonly compactionMinBytes: number | null;
  /** Longest real pause between two calls of one caller, in milliseconds. */
  readonly maxPauseMs: number;
  /** Callers making calls at once (1–8). */
  readonly window: number;
}

/** The child gives up after this long (real ms), in case no kill ever comes. */
const LIFETIME_MS = 30_000;

const options = JSON.parse(process.argv[2] ?? 'null') as HostCrashChildOptions | null;
if (options === null) throw new Error('usage: hostCrashChild.ts <options as JSON>');

process.stdin.on('close', () => process.exit(2));
process.stdin.resume();
setTimeout(() => process.exit(4), LIFETIME_MS).unref();

async function perform(service: ScheduleService, op: WorkloadOp): Promise<unknown> {
  switch (op.op) {
    case 'create':
      return service.callTool(op.sessionId, 'schedule_create', op.args);
    case 'update':
      return service.callTool(op.sessionId, 'schedule_update', op.args);
    case 'remoteUpdate':
      return service.remote.update(op.request as unknown as Parameters<ScheduleService['remote']['update']>[0]);
    case 'delete':
      return service.callTool(op.sessionId, 'schedule_delete', { id: op.id });
    case 'remoteDelete':
      return service.remote.delete({ sessionId: op.sessionId, id: op.id });
    case 'stop': {
      await service.archive.sessionStop(op.sessionId);
      const catalog = await service.remote.catalog();
      return { remaining: catalog.filter((entry) => entry.sessionId === op.sessionId).map((entry) => entry.record.id) };
    }
  }
}

const anchor = { simStart: options.simStart, realStart: realNow(), factor: options.factor };
emit({ e: 'clock', ...anchor });
const clock = createAcceleratedClock(anchor);
const probe = createProbe(options.hold);
let stack: HostStack;
try {
  stack = await openHostStack({
    dataDir: options.dataDir,
    clock,
    config: { maxWaitMs: 3_600_000 },
    logger: {
      warn: (msg) => emit({ e: 'log', level: 'warn', msg }),
      error: (msg, data) => emit({ e: 'log', level: 'error', msg, data: String((data as { cause?: unknown })?.cause ?? '') }),
    },
    ...(options.compactionMinBytes === null ? {} : { storage: { compaction: { minBytes: options.compactionMinBytes, ratio: 0 } } }),
    wrap: {
      sessions: (inner) => probeSessions(inner, probe, (sessionId, keys, messageId) => emit({ e: 'followup', sessionId, keys, messageId })),
      storage: (inner) => probeStorage(inner, probe),
    },
  });
} catch (error) {
  emit({ e: 'refused', name: (error as Error).name, code: (error as { code?: unknown }).code, message: String((error as Error).message) });
  process.exit(REFUSED_EXIT);
}
emit({ e: 'ready', now: clock.now() });

const rand = random(options.seed);
const { tag, maxPauseMs, window } = options;
let calls = 0;
async function caller(): Promise<void> {
  for (;;) {
    const catalog = await stack.service.remote.catalog();
    const n = ++calls;
    const op = nextOp(rand, catalog, clock.now(), `${tag}.${n}`);
    emit({ e: 'attempt', n, op });
    const result = await perform(stack.service, op);
    emit({ e: 'ack', n, result });
    await new Promise((resolve) => setTimeout(resolve, Math.floor(rand() * maxPauseMs)));
  }
}
for (let i = 0; i < Math.max(1, Math.min(8, window)); i++) {
  caller().catch((error: unknown) => {
    emit({ e: 'log', level: 'error', msg: 'a workload call threw', data: String(error) });
    process.exit(3);
  });
}

// The reference Host's console over a stack on a manual clock, with Session `broken`
// failing to resolve, for the metrics tests (`metrics.test.ts`, and the promtool check that
// `npm run test:metrics` runs): `deliverAndFail` makes one delivery and one failed attempt happen.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHostConsole } from '../../host/hostConsole.ts';
import { hostLimits } from '../../host/limits.ts';
import { openHostStack } from '../../host/stack.ts';
import { createManualClock } from '../../src/testing.ts';

const START = '2030-01-07T08:00:00.000Z';
const PORT = 4319;

export interface MetricsRig {
  readonly stack: Awaited<ReturnType<typeof openHostStack>>;
  /** GET `path` as `curl http://127.0.0.1:4319<path>` sends it, or with another `Host` header. */
  get(path: string, host?: string): Promise<Response>;
  /** A reminder due in a minute in Session `demo` is delivered; one in Session `broken` fails at resolve. */
  deliverAndFail(): Promise<void>;
  close(): Promise<void>;
}

export async function metricsRig(): Promise<MetricsRig> {
  const dataDir = await mkdtemp(join(tmpdir(), 'agent-schedule-metrics-'));
  const clock = createManualClock(START);
  const logger = { warn: () => undefined, error: () => undefined };
  const stack = await openHostStack({
    dataDir,
    clock,
    logger,
    demoAgent: false,
    wrap: {
      sessions: (sessions) => ({
        resolveAgent: (sessionId) =>
          sessionId === 'broken' ? Promise.reject(new Error('Session broken cannot be restored')) : sessions.resolveAgent(sessionId),
      }),
    },
  });
  clock.attach(stack.service);
  const { fetch, close } = createHostConsole({ stack, logger, limits: hostLimits() });
  let closed = false;
  return {
    stack,
    get: async (path, host = `127.0.0.1:${PORT}`) => fetch(new Request(`http://127.0.0.1:${PORT}${path}`, { headers: { host } })),
    async deliverAndFail() {
      for (const sessionId of ['demo', 'broken']) {
        const view = await stack.service.callTool(sessionId, 'schedule_create', { title: 'Tea', prompt: 'tea', after_seconds: 60 });
        if ('code' in view) throw new Error(view.message);
      }
      await clock.advance(60_000);
      await stack.service.whenIdle();
    },
    async close() {
      if (closed) return;
      closed = true;
      close();
      await stack.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

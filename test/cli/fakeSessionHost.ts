// The reference Host's stack and HTTP application over in-memory fake Sessions, on a test clock
// (2030-01-07T08:00Z) and an ephemeral loopback port, so a CLI test can make a delivery fail
// (`sessions.failNext(sessionId, 'flush')`) and read the failure status the Host reports.

import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAdaptorServer } from '@hono/node-server';
import { createHostConsole } from '../../host/hostConsole.ts';
import { hostLimits } from '../../host/limits.ts';
import { openHostStack } from '../../host/stack.ts';
import type { Console } from '../../src/console/options.ts';
import { createFakeSessions, createManualClock, type FakeSessions, type ManualClock } from '../../src/testing.ts';
import { START } from '../host/support.ts';

export interface FakeSessionHost {
  readonly url: string;
  readonly sessions: FakeSessions;
  readonly clock: ManualClock;
  close(): Promise<void>;
}

/** Starts the Host's application with fake Sessions; `close` stops the server, the stack and removes the data folder. */
export async function startFakeSessionHost(): Promise<FakeSessionHost> {
  const dataDir = await mkdtemp(join(tmpdir(), 'agent-schedule-cli-'));
  const sessions = createFakeSessions();
  const clock = createManualClock(START);
  const logger = { warn: () => undefined, error: () => undefined };
  const stack = await openHostStack({ dataDir, clock, logger, wrap: { sessions: () => sessions } });
  clock.attach(stack.service);
  let handler: Console | undefined;
  const server = createAdaptorServer({
    fetch: (request, env) => handler?.fetch(request, env) ?? new Response(null, { status: 503 }),
  }) as Server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  const http = createHostConsole({ stack, logger, limits: hostLimits(), testClock: clock });
  handler = http;
  return {
    url: `http://127.0.0.1:${port}`,
    sessions,
    clock,
    async close() {
      http.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await stack.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

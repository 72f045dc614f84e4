// A Host started in-process for tests: a fresh temp data folder, an ephemeral loopback port and
// a test clock, plus small request helpers that return status and JSON body.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHost, type Host, type HostOptions } from '../../host/createHost.ts';
import type { ScheduleView } from '../../src/index.ts';

export const START = '2030-01-07T08:00:00.000Z';

/** A status and a parsed JSON body, typed as the test expects it. */
export interface Reply<T = Record<string, unknown>> {
  readonly status: number;
  readonly body: T;
}

export interface TestHost {
  readonly host: Host;
  readonly dataDir: string;
  readonly url: string;
  readonly logged: string[];
  get<T = Record<string, unknown>>(path: string): Promise<Reply<T>>;
  send<T = Record<string, unknown>>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply<T>>;
  /** Creates a task through the tool route. */
  create(sessionId: string, args: Record<string, unknown>): Promise<Reply<ScheduleView>>;
  advance(ms: number): Promise<void>;
  close(): Promise<void>;
}

async function reply<T>(response: Response): Promise<Reply<T>> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body: body as T };
}

/** Starts a Host on a free port, in test-clock mode unless `systemClock`; a temp data folder unless `keepDataDir`. */
export async function startTestHost(
  options: Partial<HostOptions> & { keepDataDir?: string; systemClock?: boolean } = {},
): Promise<TestHost> {
  const { keepDataDir, systemClock, ...hostOptions } = options;
  const dataDir = keepDataDir ?? (await mkdtemp(join(tmpdir(), 'agent-schedule-host-')));
  const logged: string[] = [];
  const host = await createHost({
    ...(systemClock === true ? {} : { testClock: START }),
    port: 0,
    logger: { warn: (m) => void logged.push(m), error: (m) => void logged.push(m) },
    ...hostOptions,
    dataDir,
  });
  const send = async <T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    reply<T>(
      await fetch(`${host.url}${path}`, {
        method,
        headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      }),
    );
  return {
    host,
    dataDir,
    url: host.url,
    logged,
    get: <T>(path: string) => send<T>('GET', path),
    send,
    create: (sessionId, args) => send<ScheduleView>('POST', `/api/sessions/${sessionId}/tools/schedule_create`, args),
    async advance(ms) {
      const r = await send('POST', '/api/test/clock', { advanceMs: ms });
      if (r.status !== 200) throw new Error(`advance failed: ${JSON.stringify(r.body)}`);
    },
    async close() {
      await host.close();
      if (keepDataDir === undefined) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

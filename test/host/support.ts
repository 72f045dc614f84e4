// A Host started in-process for tests: a fresh temp data folder, an ephemeral loopback port and
// a test clock, plus small request helpers that return status and JSON body, and a reader of
// Server-Sent Events.
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

/** One Server-Sent Event: its name and its data, parsed. */
export interface SeenEvent<T> {
  readonly event: string;
  readonly data: T;
}

/** Opens a Server-Sent Events stream of a Host (`/api/events` unless `path` names another); `parse` reads each event's data. */
export async function openEvents<T = unknown>(url: string, path = '/api/events', parse: (text: string) => T = JSON.parse) {
  const abort = new AbortController();
  const response = await fetch(`${url}${path}`, { signal: abort.signal });
  const reader = response.body?.getReader();
  if (reader === undefined) throw new Error('no event stream');
  const decoder = new TextDecoder();
  const events: Array<SeenEvent<T>> = [];
  let buffer = '';
  /** Reads until `done` returns true for the events seen so far; rejects when the stream ends first. */
  async function until(done: (seen: Array<SeenEvent<T>>) => boolean): Promise<Array<SeenEvent<T>>> {
    while (!done(events)) {
      const chunk = await reader?.read();
      if (chunk === undefined || chunk.done) throw new Error(`stream ended; saw ${JSON.stringify(events)}`);
      buffer += decoder.decode(chunk.value, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (event !== undefined && data !== undefined) events.push({ event, data: parse(data) });
      }
    }
    return events;
  }
  return { response, until, close: () => abort.abort() };
}

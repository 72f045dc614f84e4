// The Host's feed to the Stately Inspector (INSPECT_WS): a Host started in-process with
// `inspectWs` sends its actor system's events to a test WebSocket server while its own Inspector
// tab keeps its view; `npm start`'s entry reads INSPECT_WS, sends there, and refuses a malformed
// value with exit 2; the feed itself keeps events for an unreachable server, reconnects after a lost
// connection, retries a failing server with one warning, and once closed neither reconnects nor sends.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createStatelyFeed, inspectionJson } from '../../host/statelyInspector.ts';
import { type StatelyServer, startStatelyServer, stateTrail } from '../support/statelyServer.ts';
import { startTestHost } from './support.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

const servers: StatelyServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function relay(): Promise<StatelyServer> {
  const server = await startStatelyServer();
  servers.push(server);
  return server;
}

/** A TCP port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Runs host/main.ts with `env`. Once it says where it listens, `whileRunning` gets its URL and the
 * Host is then stopped with one SIGTERM; resolves with the exit code and everything it printed.
 */
async function runMain(env: Record<string, string>, whileRunning: (url: string) => Promise<void>) {
  const dataDir = await mkdtemp(join(tmpdir(), 'agent-schedule-stately-main-'));
  try {
    const child = spawn(process.execPath, ['--import', 'tsx', 'host/main.ts'], {
      cwd: root,
      env: { ...process.env, PORT: '0', HOST: '', ALLOWED_HOSTS: '', SCHEDULE_TEST_CLOCK: '', LOG_LEVEL: '', DATA_DIR: dataDir, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let started = false;
    const seen = (chunk: string) => {
      out += chunk;
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      if (url === undefined || started) return;
      started = true;
      void whileRunning(url)
        .catch((error: unknown) => {
          out += `\nwhileRunning failed: ${String(error)}`;
        })
        .finally(() => child.kill('SIGTERM'));
    };
    child.stdout.setEncoding('utf8').on('data', seen);
    child.stderr.setEncoding('utf8').on('data', seen);
    const code = await new Promise<number | null>((done) => child.on('exit', (exitCode) => done(exitCode)));
    return { code, out };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

describe('a Host with inspectWs', () => {
  it('sends the actor system to the Stately Inspector server and keeps its own Inspector', async () => {
    const server = await relay();
    const t = await startTestHost({ inspectWs: server.url });
    try {
      await server.waitFor('the Host to connect', () => server.connections().open === 1);
      await server.waitFor('the supervisor', () => server.actor('supervisor') !== undefined);
      const created = await t.create('demo', { title: 'Stretch', prompt: 'Stand up.', after_seconds: 60 });
      expect(created.status).toBe(200);
      const id = created.body.id;
      await t.advance(60_000);
      await server.waitFor(
        `the task ${id} to end`,
        () => stateTrail(server.snapshots(server.actor(id)?.sessionId ?? '')).status === 'done',
      );

      const supervisor = server.actor('supervisor');
      const task = server.actor(id);
      expect(task).toMatchObject({
        rootId: supervisor?.sessionId,
        snapshot: { value: 'scheduled', context: { row: { sessionId: 'demo' } } },
      });
      expect(stateTrail(server.snapshots(task?.sessionId ?? ''))).toEqual({
        states: ['scheduled', 'overdue', 'delivering', 'inactive'],
        status: 'done',
      });
      expect(server.malformed).toEqual([]);
      // The Host's own Inspector saw the same task go through the same states.
      const own = t.host.inspector
        .events()
        .filter((e) => e.type === 'snapshot' && e.actorId === id)
        .map((e) => e.state);
      expect(own).toEqual(['scheduled', 'overdue', 'delivering', 'inactive']);
      expect(t.host.inspector.actors().find((a) => a.kind === 'supervisor')).toMatchObject({ status: 'active' });
    } finally {
      await t.close();
    }
    // Closing the Host sends its last events and closes the socket.
    const closing = server.snapshots(server.actor('supervisor')?.sessionId ?? '');
    expect(stateTrail(closing).states.at(-1)).toBe('closed');
    await server.waitFor('the Host to disconnect', () => server.connections().open === 0);
  });

  it('starts while the server is unreachable, warns, and closes', async () => {
    const t = await startTestHost({ inspectWs: `ws://127.0.0.1:${await closedPort()}` });
    try {
      expect((await t.create('demo', { title: 'Later', prompt: 'later', after_seconds: 3600 })).status).toBe(200);
      await new Promise<void>((resolve, reject) => {
        const deadline = Date.now() + 5_000;
        const poll = () => {
          if (t.logged.some((m) => m.includes('Stately Inspector'))) resolve();
          else if (Date.now() > deadline) reject(new Error(`no warning; logged ${JSON.stringify(t.logged)}`));
          else setTimeout(poll, 10);
        };
        poll();
      });
    } finally {
      await t.close();
    }
    expect(t.logged.filter((m) => m.includes('Stately Inspector'))).toEqual([
      expect.stringMatching(/^The Stately Inspector at ws:\/\/127\.0\.0\.1:\d+ is not reachable \(.*ECONNREFUSED.*\); retrying\.$/),
    ]);
  });
});

describe('npm start with INSPECT_WS', () => {
  it('sends the actor system to the server it names', async () => {
    const server = await relay();
    const { code, out } = await runMain({ INSPECT_WS: server.url }, async (url) => {
      expect((await fetch(`${url}/api/status`)).status).toBe(200);
      await server.waitFor('the supervisor', () => server.actor('supervisor') !== undefined);
    });
    expect(code, out).toBe(0);
    expect(out).toMatch(/"msg":"stopped"/);
    expect(server.actor('supervisor')).toMatchObject({ type: '@xstate.actor', snapshot: { status: 'active' } });
    expect(server.malformed).toEqual([]);
  });

  it('exits 2 on a malformed INSPECT_WS, naming it, and does not start', async () => {
    const { code, out } = await runMain({ INSPECT_WS: 'localhost:8080' }, async () => undefined);
    expect(code).toBe(2);
    expect(out).toMatch(/INSPECT_WS must be a WebSocket URL/);
    expect(out).not.toMatch(/listening/);
  });
});

/** An `@xstate.actor` inspection event of a stand-in actor, in the shape XState hands out. */
function actorEvent(id: string) {
  const actorRef = { sessionId: `x:${id}`, id, _parent: undefined, getSnapshot: () => ({ status: 'active', value: id }) };
  return { type: '@xstate.actor', rootId: 'x:root', actorRef } as const;
}

describe('the Stately feed', () => {
  it('keeps the events until the server accepts, then sends them in order; reconnects after a lost connection', async () => {
    const server = await relay();
    const feed = createStatelyFeed({ url: server.url, retryMs: 10 });
    try {
      feed.inspect(actorEvent('a'));
      feed.inspect(actorEvent('b'));
      await server.waitFor('the first two events', () => server.events.length === 2);
      expect(server.events.map((e) => e.type === '@xstate.actor' && [e.name, e.sessionId, e.rootId])).toEqual([
        ['a', 'x:a', 'x:root'],
        ['b', 'x:b', 'x:root'],
      ]);
      expect(feed.connected()).toBe(true);
      // The server drops the connection: what happens meanwhile waits, and the feed connects again.
      server.drop();
      await server.waitFor('the feed to notice', () => !feed.connected());
      feed.inspect(actorEvent('c'));
      await server.waitFor('the event sent after reconnecting', () => server.events.length === 3);
      expect(server.connections()).toEqual({ accepted: 2, open: 1 });
      expect(server.actor('c')).toMatchObject({ snapshot: { value: 'c' } });
      expect(server.malformed).toEqual([]);
    } finally {
      await feed.close();
    }
    await server.waitFor('the feed to disconnect', () => server.connections().open === 0);
    // Closed: nothing more is sent.
    feed.inspect(actorEvent('d'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.events).toHaveLength(3);
  });

  it('serializes cycles, deep values, functions and bigints without failing', () => {
    const cyclic: Record<string, unknown> = { name: 'loop', big: 10n, run: function tick() {} };
    cyclic.self = cyclic;
    const shared = { x: 1 };
    let deep: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < 12; i += 1) deep = { deep };
    expect(JSON.parse(inspectionJson({ cyclic, pair: [shared, shared] }))).toEqual({
      cyclic: { name: 'loop', big: '10', run: { type: 'tick' }, self: '[Circular]' },
      pair: [{ x: 1 }, { x: 1 }],
    });
    expect(inspectionJson(deep, 3)).toBe('{"deep":{"deep":{"deep":"[Object]"}}}');
  });
});

/** A TCP server that accepts connections and never answers (or, `hangUp`, drops each at once). */
async function silentServer(hangUp = false): Promise<{ port: number; accepted: () => number; close: () => Promise<void> }> {
  const sockets: Socket[] = [];
  const server: Server = createServer((socket) => {
    sockets.push(socket);
    if (hangUp) socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    accepted: () => sockets.length,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('the Stately feed and a failing server', () => {
  it('a server that keeps failing is retried, and told about once', async () => {
    const failing = await silentServer(true);
    const told: string[] = [];
    const feed = createStatelyFeed({ url: `ws://127.0.0.1:${failing.port}`, retryMs: 5, onDisconnect: (reason) => told.push(reason) });
    try {
      const deadline = Date.now() + 5_000;
      while (failing.accepted() < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(failing.accepted()).toBeGreaterThanOrEqual(3);
      expect(told).toHaveLength(1);
      expect(feed.connected()).toBe(false);
    } finally {
      await feed.close();
      await failing.close();
    }
  });

  it('while still connecting ends it for good: no reconnect follows', async () => {
    const silent = await silentServer();
    try {
      const feed = createStatelyFeed({ url: `ws://127.0.0.1:${silent.port}`, retryMs: 5 });
      const deadline = Date.now() + 5_000;
      while (silent.accepted() === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(silent.accepted()).toBe(1);
      await feed.close();
      // Twenty retry periods: a feed that still reconnected would have done so by now.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(silent.accepted()).toBe(1);
      expect(feed.connected()).toBe(false);
    } finally {
      await silent.close();
    }
  });
});

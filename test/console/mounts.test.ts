// The console mounted the ways docs/console.md shows: in Node's `http` (through @hono/node-server
// and through the console's own `nodeListener`), in a Hono app under `/schedule`, and in an
// Express app under `/schedule` — each driven through the same calls against a memory-storage
// service on a manual clock: the catalog, a pause, the tools, the page and its files.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import express from 'express';
import { Hono } from 'hono';
import { createConsole, nodeListener } from '../../src/console/index.ts';
import { drive, expectServed, type ServiceRig, serviceRig } from './rig.ts';

let rig: ServiceRig;
const servers: Server[] = [];
const closers: Array<() => void> = [];

beforeEach(async () => {
  rig = await serviceRig();
});

afterEach(async () => {
  for (const close of closers.splice(0)) close();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  await rig.close();
});

/** Listens on an ephemeral loopback port; answers the server's root URL. */
async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function newConsole(basePath?: string) {
  const schedule = createConsole({
    service: rig.service,
    inspector: rig.inspector,
    clock: rig.clock,
    ...(basePath === undefined ? {} : { basePath }),
  });
  closers.push(() => schedule.close());
  return schedule;
}

describe('the console mounted in Node http', () => {
  it('through @hono/node-server answers the API, the page and its files', async () => {
    const schedule = newConsole();
    const url = await listen(createAdaptorServer({ fetch: schedule.fetch }) as Server);
    expectServed(await drive(`${url}/`, rig.task), rig.task);
  });

  it('through nodeListener answers the API, the page and its files', async () => {
    const schedule = newConsole();
    const url = await listen(createServer(nodeListener(schedule.fetch)));
    expectServed(await drive(`${url}/`, rig.task), rig.task);
    // The default authorize read the client's address from the listener: loopback, let in.
    expect((await fetch(`${url}/api/status`)).status).toBe(200);
  });

  it('streams the live events through nodeListener', async () => {
    const schedule = newConsole();
    const url = await listen(createServer(nodeListener(schedule.fetch)));
    const stream = await fetch(`${url}/api/events`);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('event: ready');
    expect(schedule.streams().streams).toBe(1);
    await reader.cancel();
  });
});

describe('the console mounted under /schedule', () => {
  it('in a Hono app (mount without rewriting the path) answers there and redirects the bare base path', async () => {
    const schedule = newConsole('/schedule');
    const app = new Hono();
    app.get('/', (c) => c.text('the Host’s own home'));
    app.mount('/schedule', schedule.fetch, { replaceRequest: false });
    const url = await listen(createAdaptorServer({ fetch: app.fetch }) as Server);
    expectServed(await drive(`${url}/schedule/`, rig.task), rig.task);
    const bare = await fetch(`${url}/schedule`, { redirect: 'manual' });
    expect([bare.status, bare.headers.get('location')]).toEqual([308, '/schedule/']);
    expect(await (await fetch(`${url}/`)).text()).toBe('the Host’s own home');
  });

  it('in an Express app answers there', async () => {
    const schedule = newConsole('/schedule');
    const app = express();
    app.get('/', (_request, response) => {
      response.send('the Host’s own home');
    });
    app.use('/schedule', nodeListener(schedule.fetch));
    const url = await listen(createServer(app));
    expectServed(await drive(`${url}/schedule/`, rig.task), rig.task);
    expect(await (await fetch(`${url}/`)).text()).toBe('the Host’s own home');
  });

  it('answers nothing outside its base path', async () => {
    const schedule = newConsole('/schedule');
    const outside = await schedule.fetch(new Request('http://127.0.0.1/api/catalog'));
    expect(outside.status).toBe(404);
    expect(await outside.json()).toMatchObject({ code: 'route_not_found' });
    expect((await schedule.fetch(new Request('http://127.0.0.1/schedule/api/catalog'))).status).toBe(200);
  });
});

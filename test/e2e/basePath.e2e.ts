// The task page served by the console mounted under `/schedule` in a Hono app, in real Chromium:
// the bare base path redirects to the page, which loads its files and vendor modules and calls
// the API through relative URLs, lists the task, pauses it, and hides the Transcripts tab of a
// Host that gives no transcripts. Nothing is requested outside the base path.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import type { Browser } from 'playwright-core';
import { createConsole } from '../../src/console/index.ts';
import { type ServiceRig, serviceRig } from '../console/rig.ts';
import { launchChromium, openPage } from './browser.ts';

let browser: Browser;
let rig: ServiceRig;
let server: Server;
let url: string;
let closeConsole: () => void;

beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

beforeEach(async () => {
  rig = await serviceRig();
  const schedule = createConsole({ service: rig.service, inspector: rig.inspector, clock: rig.clock, basePath: '/schedule' });
  closeConsole = () => schedule.close();
  const app = new Hono();
  app.mount('/schedule', schedule.fetch, { replaceRequest: false });
  server = createAdaptorServer({ fetch: app.fetch }) as Server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  closeConsole();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rig.close();
});

describe('the page under a base path', () => {
  it('loads from /schedule, lists and pauses the task, and requests nothing outside /schedule/', async () => {
    const requested: string[] = [];
    const { page, errors } = await openPage(browser, `${url}/schedule`).then(async (opened) => {
      opened.page.on('request', (request) => requested.push(new URL(request.url()).pathname));
      return opened;
    });
    expect(new URL(page.url()).pathname).toBe('/schedule/');
    const tasks = page.getByRole('region', { name: /^Tasks/ });
    await tasks.getByText('Tea').first().waitFor();
    expect(await page.getByRole('tab').allTextContents()).toEqual(['Tasks', 'Inspector']);
    await tasks.getByRole('button', { name: 'Pause “Tea”' }).click();
    await tasks.getByRole('button', { name: 'Resume “Tea”' }).waitFor();
    const entry = await rig.service.remote.get({ sessionId: 's1', id: rig.task.id });
    expect(entry).toHaveProperty('pausedAt');
    expect(requested.filter((path) => !path.startsWith('/schedule/'))).toEqual([]);
    await page.context().close();
    expect(errors).toEqual([]);
  });
});

// The connection state in real Chromium: when the Host goes away the page says "disconnected,
// retrying…" within 5 s and a test-clock button answers with a notice instead of an uncaught
// error; when a Host is back on the same port and data folder, the page reconnects by itself
// and shows the tasks again. The page must raise no errors throughout.
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { startTestHost, type TestHost } from '../host/support.ts';
import { seriousViolations } from './axe.ts';
import { launchChromium, openPage, RESULTS_DIR } from './browser.ts';

let browser: Browser;
const hosts: TestHost[] = [];
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  for (const host of hosts.splice(0).reverse()) await host.close().catch(() => undefined);
});

describe('the connection state', () => {
  it('shows "disconnected, retrying…" within 5 s of the Host going away and recovers by itself', async () => {
    const first = await startTestHost();
    hosts.push(first);
    const r = await first.create('demo', {
      title: 'Survives the restart',
      prompt: 'still here',
      daily: { time: '09:00:00', time_zone: 'UTC' },
    });
    expect(r.status).toBe(200);
    const { page, errors } = await openPage(browser, first.url);
    const catalog = page.getByRole('region', { name: /^Tasks/ });
    await catalog.getByRole('link', { name: 'Survives the restart' }).waitFor();

    const port = new URL(first.url).port;
    const wentAway = Date.now();
    await first.host.close();
    await page.getByText('disconnected, retrying…', { exact: true }).waitFor({ timeout: 5_000 });
    expect(Date.now() - wentAway).toBeLessThan(5_000);
    // The banner; a panel whose request failed meanwhile shows its own alert, led by its code.
    const banner = page.getByRole('alert').filter({ hasText: /^The Host does not answer/ });
    await banner.waitFor();
    // A button that needs the Host says so instead of throwing.
    await page.getByRole('button', { name: '+1 min' }).click();
    await page.getByRole('status').filter({ hasText: 'The Host does not answer' }).waitFor();
    await page.screenshot({ path: join(RESULTS_DIR, 'disconnected.png') });
    expect(await seriousViolations(page)).toEqual([]);

    const second = await startTestHost({ port: Number(port), keepDataDir: first.dataDir });
    hosts.push(second);
    await page.getByText('live', { exact: true }).waitFor({ timeout: 15_000 });
    await banner.waitFor({ state: 'detached' });
    await catalog.getByRole('link', { name: 'Survives the restart' }).waitFor();
    await page.context().close();
    expect(errors).toEqual([]);
  });
});

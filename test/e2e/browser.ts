// Real Chromium for the browser tests: Debian's /usr/bin/chromium (or CHROMIUM_PATH), headless,
// with the flags that keep it from reaching out; each page in a fresh context pinned to the
// Europe/Berlin zone and a 24-hour English locale, collecting page errors. `usePageOnTestHost`
// gives every test of a file a fresh Host on a test clock with the page open on it.
import { mkdir } from 'node:fs/promises';
import { type Browser, chromium, type Page } from 'playwright-core';
import { startTestHost, type TestHost } from '../host/support.ts';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** The zone the browser reports, so "your zone" columns are deterministic. */
export const BROWSER_ZONE = 'Europe/Berlin';

/** Where screenshots go. */
export const RESULTS_DIR = 'test-results';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: FLAGS });
}

/** A page of a fresh context with the errors it raised. */
export async function openPage(browser: Browser, url: string): Promise<{ page: Page; errors: string[] }> {
  await mkdir(RESULTS_DIR, { recursive: true });
  const context = await browser.newContext({ timezoneId: BROWSER_ZONE, locale: 'en-GB', viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    // Refused requests (a 409 conflict, say) are logged by the browser and handled by the page.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) errors.push(message.text());
  });
  await page.goto(url);
  await page.getByText('live', { exact: true }).waitFor();
  return { page, errors };
}

/**
 * Registers the hooks of a browser test file: one Chromium for the file, and for each test a
 * fresh Host on a test clock with the page open on it, handed to `opened`. After each test the
 * page and the Host are closed and the page must have raised no errors.
 */
export function usePageOnTestHost(opened: (current: { t: TestHost; page: Page }) => void): void {
  let browser: Browser;
  let t: TestHost;
  let page: Page;
  let errors: string[];
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  beforeEach(async () => {
    t = await startTestHost();
    ({ page, errors } = await openPage(browser, t.url));
    opened({ t, page });
  });
  afterEach(async () => {
    await page.context().close();
    await t.close();
    expect(errors).toEqual([]);
  });
}

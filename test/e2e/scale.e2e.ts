// The task page at scale in real Chromium: a Host on a test clock holding 10,000 tasks of every
// kind over 500 Sessions (paused ones, some with a note; ended ones; failing ones in three broken
// Sessions), written straight into its data folder, with the clock moving on so that about 20
// deliveries fall due every second. While they flow, a search, each filter (Session, kind,
// state), paging and a bulk pause each show the matching rows within 1 s of the action (a
// Playwright wait on the expected rows with a 1 s timeout), and from the moment a step's rows are
// shown until the next step begins, the list never shows a row that contradicts the controls (a
// watcher in the page checks every change of the list). The counts per state head the list and
// set the State filter. axe reports no violation at all. Screenshots go to test-results/.
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { installRowChecks, type RowControls, rowsAgree } from '../../bench/support/consoleChecks.ts';
import { writeConsoleDataDir } from '../../bench/support/consoleDomain.ts';
import { START, startTestHost, type TestHost } from '../host/support.ts';
import { allViolations } from './axe.ts';
import { launchChromium, openPage, RESULTS_DIR } from './browser.ts';

const TASKS = 10_000;
/** The time a step's rows must be on screen by. */
const WITHIN = { timeout: 1_000, polling: 'raf' } as const;

let browser: Browser;
let t: TestHost;
let page: Page;
let errors: string[];
let cleanup: () => void;
let stopClock: () => Promise<void>;

/** Moves the test clock on by `stepMs` every `stepMs` (each move waits until the Host is idle), until stopped. */
function driveClock(host: TestHost, stepMs = 250): () => Promise<void> {
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = Date.now();
      await host.advance(stepMs);
      const rest = stepMs - (Date.now() - started);
      // Pacing the load, not waiting for a condition.
      if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
    }
  })();
  return async () => {
    running = false;
    await loop;
  };
}

beforeAll(async () => {
  const seeded = writeConsoleDataDir(TASKS, START);
  cleanup = seeded.cleanup;
  t = await startTestHost({ keepDataDir: seeded.dataDir });
  browser = await launchChromium();
  ({ page, errors } = await openPage(browser, t.url));
  await page.evaluate(installRowChecks());
  stopClock = driveClock(t);
}, 120_000);

afterAll(async () => {
  await stopClock?.();
  await page?.context().close();
  await browser?.close();
  await t?.close();
  cleanup?.();
}, 60_000);

const catalog = () => page.getByRole('region', { name: /^Tasks/ });
const pagerText = () => catalog().getByRole('navigation', { name: 'Task pages' }).locator('span').textContent();

/** Stops checking the rows while a step changes the controls. */
const unwatch = () => page.evaluate(() => void Object.assign(window, { consoleControls: null }));

/**
 * Runs `act`, then waits at most 1 s for the list to show rows that all agree with `controls`,
 * and from then on has the watcher check every change of the list against them.
 */
async function step(controls: RowControls, act: () => Promise<unknown>): Promise<void> {
  await unwatch();
  await act();
  const acted = Date.now();
  try {
    await page.waitForFunction(rowsAgree, controls, WITHIN);
  } catch (error) {
    // Say how late the rows were (or what they showed instead), then fail.
    const late = await page.waitForFunction(rowsAgree, controls, { timeout: 20_000 }).then(
      () => `they came after ${Date.now() - acted} ms`,
      async () =>
        `after 20 s the list showed ${JSON.stringify(await page.evaluate((c) => (window as unknown as { consoleCheck: (c: RowControls) => unknown }).consoleCheck(c), controls))}`,
    );
    throw new Error(`The rows of ${JSON.stringify(controls)} were not shown within 1 s: ${late}.`, { cause: error });
  }
  await page.evaluate((c) => void Object.assign(window, { consoleControls: c }), controls);
}

/** Lets the list refresh a few times while deliveries flow, then expects no contradiction seen so far. */
async function expectNoContradiction(): Promise<void> {
  for (let i = 0; i < 2; i++) await page.waitForResponse((r) => r.url().includes('/api/catalog?'), { timeout: 10_000 });
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve(undefined))));
  expect(await page.evaluate(() => (window as unknown as { consoleContradictions: string[] }).consoleContradictions)).toEqual([]);
}

describe(`the task page at ${TASKS.toLocaleString('en')} tasks with deliveries flowing`, () => {
  it('shows the rows of each search, filter, page and bulk pause within 1 s and never a row that contradicts the controls', async () => {
    await catalog().locator('table.catalog-table tbody tr').first().waitFor({ timeout: 30_000 });
    const counts = catalog().getByRole('group', { name: 'Task counts' });
    expect(await counts.getByRole('button', { name: /^All/ }).textContent()).toContain('10,000');

    // The search applies as you type, without Enter.
    await step({ text: 'task 12' }, () => catalog().getByLabel('Search').fill('task 12'));
    await expectNoContradiction();

    // Session, then kind on top of it.
    await step({ text: 'task 12', sessionId: 'session-12' }, () => catalog().getByLabel('Session', { exact: true }).fill('session-12'));
    await step({ sessionId: 'session-12' }, () => catalog().getByLabel('Search').fill(''));
    await step({ sessionId: 'session-12', kind: 'weekly' }, () => catalog().getByLabel('Kind').selectOption('weekly'));
    await expectNoContradiction();
    await step({}, async () => {
      await catalog().getByLabel('Session', { exact: true }).fill('');
      await catalog().getByLabel('Kind').selectOption('');
    });

    // Each state, from the State filter and from the counts.
    for (const [state, label] of [
      ['paused', 'Paused'],
      ['failing', 'Failing'],
      ['inactive', 'Ended'],
      ['scheduled', 'Scheduled'],
    ] as const) {
      await step({ state }, () => catalog().getByLabel('State').selectOption({ label }));
      await expectNoContradiction();
    }
    await page.screenshot({ path: join(RESULTS_DIR, 'scale-10k-scheduled.png') });
    await step({ state: 'failing' }, () => counts.getByRole('button', { name: /^Failing/ }).click());
    expect(await counts.getByRole('button', { name: /^Failing/ }).getAttribute('aria-pressed')).toBe('true');
    expect(await catalog().getByLabel('State').inputValue()).toBe('failing');
    // A failing row shows its whole cause.
    expect(await catalog().locator('tbody tr .failure-message').first().textContent()).toMatch(/broken-\d\.jsonl:1 is not a JSON line\.$/);
    await expectNoContradiction();

    // Paging by cursor while changes flow.
    await step({ state: 'paused' }, () => catalog().getByLabel('State').selectOption({ label: 'Paused' }));
    const pager = catalog().getByRole('navigation', { name: 'Task pages' });
    const firstPage = await catalog().locator('a.title-link').allTextContents();
    await step({ state: 'paused' }, () => pager.getByRole('button', { name: 'Next' }).click());
    await page.waitForFunction(() => document.querySelector('nav.pager span')?.textContent?.startsWith('51–100 of'), undefined, WITHIN);
    const secondPage = await catalog().locator('a.title-link').allTextContents();
    expect(secondPage.filter((title) => firstPage.includes(title))).toEqual([]);
    await step({ state: 'paused' }, () => pager.getByRole('button', { name: 'Next' }).click());
    await page.waitForFunction(() => document.querySelector('nav.pager span')?.textContent?.startsWith('101–150 of'), undefined, WITHIN);
    await expectNoContradiction();
    await step({ state: 'paused' }, () => pager.getByRole('button', { name: 'Previous' }).click());
    await page.waitForFunction(() => document.querySelector('nav.pager span')?.textContent?.startsWith('51–100 of'), undefined, WITHIN);
    expect(await pagerText()).toMatch(/^51–100 of \d+$/);

    // A bulk pause of the active tasks a search and a kind select, with a note.
    await step({ text: 'task 34', kind: 'daily', state: 'active' }, async () => {
      await catalog().getByLabel('State').selectOption({ label: 'Active (not ended)' });
      await catalog().getByLabel('Kind').selectOption('daily');
      await catalog().getByLabel('Search').fill('task 34');
    });
    const bulk = catalog().getByRole('group', { name: 'Bulk actions' });
    const pauseButton = bulk.getByRole('button', { name: /^Pause \d+$/ });
    const matching = Number((await pauseButton.textContent())?.replace(/\D/g, ''));
    expect(matching).toBeGreaterThan(0);
    await pauseButton.click();
    expect(await bulk.locator('#bulk-question').textContent()).toContain(`Pause ${matching} task`);
    await bulk.getByLabel(/^Note/).fill('Scale test window');
    await unwatch();
    await bulk.getByRole('button', { name: `Confirm: pause ${matching}` }).click();
    await bulk
      .getByRole('status')
      .filter({ hasText: `of ${matching} paused` })
      .waitFor({ timeout: 10_000 });
    await page.waitForFunction(rowsAgree, { text: 'task 34', kind: 'daily', state: 'paused' }, WITHIN);
    await page.evaluate(() => void Object.assign(window, { consoleControls: { text: 'task 34', kind: 'daily', state: 'paused' } }));
    // Tasks that were paused already keep their own note.
    expect(await catalog().locator('tbody tr .pause-note').filter({ hasText: 'Scale test window' }).count()).toBeGreaterThan(0);
    await page.screenshot({ path: join(RESULTS_DIR, 'scale-10k-bulk-paused.png') });
    await expectNoContradiction();

    // The header says live all along: the requests were answered.
    expect(await page.locator('.live').textContent()).toBe('live');
    expect(errors).toEqual([]);
  });

  it('has no axe violation of any impact', async () => {
    await unwatch();
    await catalog().getByLabel('Search').fill('');
    await catalog().getByLabel('Kind').selectOption('');
    await page.waitForFunction(rowsAgree, {}, { timeout: 5_000 });
    expect(await allViolations(page)).toEqual([]);
    await page.getByRole('tab', { name: 'Transcripts' }).click();
    await page.getByRole('heading', { name: 'Transcript', exact: true }).waitFor();
    expect(await allViolations(page)).toEqual([]);
    await page.getByRole('tab', { name: 'Tasks' }).click();
  });
});

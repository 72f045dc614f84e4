// The drift banner in real Chromium: a daily 09:00 Europe/Paris task whose committed target is
// moved an hour earlier in schedule.json between two Hosts on the same data folder (as if older
// time-zone data had written it) is listed in the banner with its stored target and the rule's
// occurrence, and carries a "drifted" badge in the table; "Re-anchor all" clears the banner and
// the row shows the corrected target. No serious or critical axe violations, and no horizontal
// overflow at 390 px. Screenshots go to test-results/.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startTestHost, type TestHost } from '../host/support.ts';
import { seriousViolations } from './axe.ts';
import { launchChromium, openPage, RESULTS_DIR } from './browser.ts';

const POLL = { timeout: 10_000, interval: 50 };

let browser: Browser;
let dataDir: string;
let t: TestHost | undefined;
let page: Page | undefined;
let errors: string[] = [];

beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'agent-schedule-drift-'));
});
afterEach(async () => {
  await page?.context().close();
  await t?.close();
  page = undefined;
  t = undefined;
  await rm(dataDir, { recursive: true, force: true });
  expect(errors).toEqual([]);
});

/** A data folder holding one daily task whose target is an hour before its rule's occurrence. */
async function driftedDataDir(): Promise<{ id: string; target: string; drifted: string }> {
  const first = await startTestHost({ keepDataDir: dataDir });
  const created = await first.create('alpha', {
    title: 'Morning plan',
    prompt: 'Plan the day',
    daily: { time: '09:00:00', time_zone: 'Europe/Paris' },
  });
  await first.close();
  if (created.status !== 200) throw new Error(JSON.stringify(created.body));
  const { id, scheduledAt } = created.body as { id: string; scheduledAt: string };
  const drifted = new Date(Date.parse(scheduledAt) - 3_600_000).toISOString();
  const path = join(dataDir, 'schedule.json');
  const text = await readFile(path, 'utf8');
  expect(text.includes(scheduledAt)).toBe(true);
  await writeFile(path, text.replace(scheduledAt, drifted));
  return { id, target: scheduledAt, drifted };
}

const banner = () => page!.getByRole('region', { name: /drifted/ });
const row = () =>
  page!
    .getByRole('region', { name: /^Tasks/ })
    .getByRole('table')
    .locator('tbody tr')
    .first();

describe('the drift banner', () => {
  it('lists a drifted task, re-anchors all, and the row shows the corrected target', async () => {
    const { id, target, drifted } = await driftedDataDir();
    t = await startTestHost({ keepDataDir: dataDir });
    const report = await t.get<{ tasks: Array<{ id: string; scheduledAt: string; occurrence: string }> }>('/api/drift');
    expect(report.body.tasks).toEqual([expect.objectContaining({ id, scheduledAt: drifted, occurrence: target })]);

    ({ page, errors } = await openPage(browser, t.url));
    await banner().waitFor();
    expect(await banner().getByRole('heading').textContent()).toBe('1 task has drifted');
    const item = banner().getByRole('listitem');
    expect(await item.count()).toBe(1);
    const text = await item.textContent();
    expect(text).toContain('Morning plan');
    expect(text).toContain('alpha');
    // The stored target read in Paris is 08:00, the rule's occurrence 09:00.
    expect(text).toMatch(/Stored target .*08:00.*the rule gives .*09:00/);
    await expect.poll(() => row().getByText('drifted', { exact: true }).count(), POLL).toBe(1);
    expect(await row().locator('td[data-label="Next target"]').textContent()).toContain('08:00');
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: join(RESULTS_DIR, 'drift-banner.png'), fullPage: true });

    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: join(RESULTS_DIR, 'drift-banner-390.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });

    await banner().getByRole('button', { name: 'Re-anchor all' }).click();
    await expect.poll(() => banner().count(), POLL).toBe(0);
    await expect.poll(() => row().locator('td[data-label="Next target"]').textContent(), POLL).toContain('09:00');
    expect(await row().getByText('drifted', { exact: true }).count()).toBe(0);
    const after = await t.get<{ tasks: unknown[] }>('/api/drift');
    expect(after.body.tasks).toEqual([]);
    const view = await t.get(`/api/sessions/alpha/tasks/${id}`);
    expect(view.status).toBe(200);
    expect(JSON.stringify(view.body)).toContain(`"scheduledAt":"${target}"`);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('re-anchors one task with its own button', async () => {
    await driftedDataDir();
    t = await startTestHost({ keepDataDir: dataDir });
    ({ page, errors } = await openPage(browser, t.url));
    await banner().getByRole('button', { name: 'Re-anchor Morning plan' }).click();
    await expect.poll(() => banner().count(), POLL).toBe(0);
    await expect.poll(() => row().locator('td[data-label="Next target"]').textContent(), POLL).toContain('09:00');
    const report = await t.get<{ tasks: unknown[] }>('/api/drift');
    expect(report.body.tasks).toEqual([]);
  });

  it('shows no banner and no badge when nothing has drifted', async () => {
    t = await startTestHost({ keepDataDir: dataDir });
    const created = await t.create('alpha', { title: 'Fine', prompt: 'Plan', daily: { time: '09:00:00', time_zone: 'Europe/Paris' } });
    expect(created.status).toBe(200);
    ({ page, errors } = await openPage(browser, t.url));
    await expect.poll(() => row().count(), POLL).toBe(1);
    expect(await page.locator('.drift-banner').count()).toBe(0);
    expect(await row().getByText('drifted', { exact: true }).count()).toBe(0);
  });
});

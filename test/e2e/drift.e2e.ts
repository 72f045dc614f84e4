// The drift banner in real Chromium: a daily 09:00 Europe/Paris task whose committed target is
// moved an hour earlier in schedule.json between two Hosts on the same data folder (as if older
// time-zone data had written it) is listed in the banner with its stored target and the rule's
// occurrence, and carries a "drifted" badge in the table; "Re-anchor all" clears the banner and
// the row shows the corrected target. The "Drifted only" filter narrows the task list to the
// drifted task, and the Inspector's status bar shows the time-zone data version in use beside the
// one the schedule was written with, marked when they differ. No serious or critical axe
// violations, and no horizontal overflow at 390 px. Screenshots go to test-results/.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { currentTzdata } from '../../src/runtime/tzdataVersion.ts';
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

/** Records another time-zone data version in the data folder's schedule.json. */
async function recordTzdata(version: string): Promise<void> {
  const path = join(dataDir, 'schedule.json');
  const document = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
  await writeFile(path, JSON.stringify({ ...document, tzdata: version }));
}

const banner = () => page!.getByRole('region', { name: /drifted/ });
const rows = () =>
  page!
    .getByRole('region', { name: /^Tasks/ })
    .getByRole('table')
    .locator('tbody tr');
const row = () => rows().first();
const titles = () => rows().locator('td[data-label="Title"]').allTextContents();

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

  it('the Drifted only filter narrows the task list to the drifted tasks, and back; State offers Paused and Failing', async () => {
    await driftedDataDir();
    await recordTzdata('2000a');
    t = await startTestHost({ keepDataDir: dataDir });
    const fine = await t.create('beta', {
      title: 'Evening review',
      prompt: 'Review',
      daily: { time: '18:00:00', time_zone: 'Europe/Paris' },
    });
    expect(fine.status).toBe(200);
    const later = await t.create('beta', { title: 'Stretch', prompt: 'Stretch', every_seconds: 3600 });
    expect(later.status).toBe(200);
    const drifted = await t.get<{ total: number; entries: Array<{ record: { title: string } }> }>('/api/catalog?drifted=true');
    expect(drifted.body.total).toBe(1);
    expect(drifted.body.entries.map((e) => e.record.title)).toEqual(['Morning plan']);

    ({ page, errors } = await openPage(browser, t.url));
    const trimmed = async () => (await titles()).map((title) => title.trim()).sort();
    await expect.poll(trimmed, POLL).toEqual(['Evening review', 'Morning plan', 'Stretch']);
    await page.getByLabel('Drifted only').check();
    await expect.poll(trimmed, POLL).toEqual(['Morning plan']);
    expect(await row().getByText('drifted', { exact: true }).count()).toBe(1);
    expect(
      await page
        .getByRole('region', { name: /^Tasks/ })
        .getByRole('heading', { level: 2 })
        .textContent(),
    ).toBe('Tasks 1');
    // With the kind filter as well: no drifted "every" task.
    await page.getByLabel('Kind', { exact: true }).selectOption('every');
    await expect.poll(() => page!.getByText('No task matches these filters.').count(), POLL).toBe(1);
    await page.getByLabel('Kind', { exact: true }).selectOption('');
    await expect.poll(trimmed, POLL).toEqual(['Morning plan']);
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel('Drifted only').uncheck();
    await expect.poll(trimmed, POLL).toEqual(['Evening review', 'Morning plan', 'Stretch']);
    // The State filter offers Paused and Failing too; no task here is either.
    for (const label of ['Paused', 'Failing']) {
      await page.getByLabel('State', { exact: true }).selectOption({ label });
      await expect.poll(() => page!.getByText('No task matches these filters.').count(), POLL).toBe(1);
    }
    await page.getByLabel('State', { exact: true }).selectOption({ label: 'Any state' });
    await expect.poll(trimmed, POLL).toEqual(['Evening review', 'Morning plan', 'Stretch']);

    // The creations above wrote the schedule, recording the version in use over the older one.
    await page.getByRole('tab', { name: 'Inspector' }).click();
    const status = page.getByTestId('tzdata-status');
    await expect
      .poll(async () => (await status.textContent())?.replace(/\s+/g, ' ').trim(), POLL)
      .toBe(`Time-zone data ${currentTzdata()} · schedule written with ${currentTzdata()}`);
  });

  it('the Inspector marks a schedule written with other time-zone data', async () => {
    await driftedDataDir();
    await recordTzdata('2000a');
    t = await startTestHost({ keepDataDir: dataDir });
    expect((await t.get<{ tzdata: string; writtenWith?: string }>('/api/drift')).body).toMatchObject({
      tzdata: currentTzdata(),
      writtenWith: '2000a',
    });
    ({ page, errors } = await openPage(browser, t.url));
    await page.getByRole('tab', { name: 'Inspector' }).click();
    const status = page.getByTestId('tzdata-status');
    await expect
      .poll(async () => (await status.textContent())?.replace(/\s+/g, ' ').trim(), POLL)
      .toBe(`Time-zone data ${currentTzdata()} · schedule written with 2000a differs`);
    expect(await seriousViolations(page)).toEqual([]);
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

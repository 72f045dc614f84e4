// The web task page in real Chromium against an in-process Host on a test clock: creating a cron
// task in a chosen zone, a delivery reaching the transcript and the history when the clock moves,
// the staged edit (save, a conflict reapplied or discarded, cancel), and delete with confirmation. Screenshots
// of the catalog and of a task detail are saved under test-results/.
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { CatalogEntry } from '../../src/index.ts';
import type { TestHost } from '../host/support.ts';
import { BROWSER_ZONE, RESULTS_DIR, usePageOnTestHost } from './browser.ts';

let t: TestHost;
let page: Page;
usePageOnTestHost((current) => {
  ({ t, page } = current);
});

const POLL = { timeout: 10_000, interval: 50 };
const createForm = () => page.getByRole('form', { name: 'Create task' });
const editForm = () => page.getByRole('form', { name: 'Edit task' });
const catalogTable = () => page.getByRole('region', { name: /^Tasks/ }).getByRole('table');
const catalog = async () => (await t.get<CatalogEntry[]>('/api/catalog')).body;

async function createThroughApi(title: string, rule: Record<string, unknown>): Promise<string> {
  const r = await t.create('demo', { title, prompt: `${title} now`, ...rule });
  if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  return r.body.id;
}

async function openTask(title: string): Promise<void> {
  await catalogTable().getByRole('link', { name: title }).click();
  await page.getByRole('heading', { level: 2, name: title }).waitFor();
}

describe('the web task page', () => {
  it('creates a cron task in a chosen zone; it appears in the catalog with its next target in both zones', async () => {
    const form = createForm();
    expect(await form.getByLabel('Time zone').inputValue()).toBe(BROWSER_ZONE);
    await form.getByLabel('Session').fill('demo');
    await form.getByLabel('Title').fill('Check the build');
    await form.getByLabel('Instruction').fill('Look at the CI dashboard and report failures.');
    await form.getByLabel('Timing').selectOption({ label: 'Cron' });
    await form.getByLabel('Cron expression').fill('*/15 9-17 * * 1-5');
    await form.getByLabel('Time zone').fill('Asia/Shanghai');
    await form.getByRole('button', { name: 'Create task' }).click();

    const row = catalogTable().getByRole('row').filter({ hasText: 'Check the build' });
    await row.waitFor();
    await expect.poll(() => row.textContent(), POLL).toContain('Mon 2030-01-07 16:15 GMT+8');
    expect(await row.textContent()).toContain('Mon 2030-01-07 09:15 GMT+1');
    const [entry] = await catalog();
    expect(entry?.record).toMatchObject({ kind: 'cron', expression: '*/15 9-17 * * 1-5', timeZone: 'Asia/Shanghai' });

    // The zone is sent even when the default is kept.
    await form.getByLabel('Title').fill('Stand-up notes');
    await form.getByLabel('Instruction').fill('Collect the stand-up notes.');
    await form.getByLabel('Timing').selectOption({ label: 'Daily' });
    await form.getByLabel(/^Time \(24-hour/).fill('09:30');
    await form.getByLabel('Time zone').fill(BROWSER_ZONE);
    await form.getByRole('button', { name: 'Create task' }).click();
    await catalogTable().getByRole('link', { name: 'Stand-up notes' }).waitFor();
    expect((await catalog()).map((e) => ('timeZone' in e.record ? e.record.timeZone : null))).toEqual(['Asia/Shanghai', BROWSER_ZONE]);

    await createThroughApi('Tea', { after_seconds: 60 });
    await page.getByRole('button', { name: '+1 min' }).click();
    await catalogTable().getByRole('row').filter({ hasText: 'Tea' }).locator('.badge.state-ended').waitFor();
    await page.screenshot({ path: join(RESULTS_DIR, 'catalog.png'), fullPage: true });
    // The README's picture is refreshed only on request, so a test run never changes a tracked file.
    if (process.env.UPDATE_SCREENSHOT === '1') {
      await mkdir('docs', { recursive: true });
      await copyFile(join(RESULTS_DIR, 'catalog.png'), join('docs', 'screenshot.png'));
    }
  });

  it('when the test clock passes the target, the reminder shows in the transcript and the history', async () => {
    const form = createForm();
    await form.getByLabel('Title').fill('Tea');
    await form.getByLabel('Instruction').fill('The tea is ready.');
    await form.getByLabel('Timing').selectOption({ label: 'After a delay' });
    await form.getByLabel(/^Delay/).fill('90');
    await form.getByRole('button', { name: 'Create task' }).click();
    await page.getByRole('heading', { level: 2, name: 'Tea' }).waitFor();
    // The history is fetched after the detail shows.
    await page.getByText('No deliveries yet.').waitFor();

    await t.advance(90_000);
    const history = page.getByRole('table', { name: 'Delivery history' });
    await history.waitFor();
    expect(await history.textContent()).toContain('msg-1');

    await page.getByRole('region', { name: 'Tea' }).getByRole('link', { name: 'demo', exact: true }).click();
    const log = page.getByRole('log', { name: 'Transcript of demo' });
    await log.waitFor();
    const text = await log.textContent();
    expect(text).toContain('reminder_prompt_json: "The tea is ready."');
    expect(text).toContain('reminder received: The tea is ready.');
    expect(await page.getByRole('tab', { name: 'Transcripts' }).getAttribute('aria-selected')).toBe('true');
  });

  it('shows a task detail with the next occurrences, DST notes and the history', async () => {
    await t.send('POST', '/api/test/clock', { set: '2030-03-27T12:00:00Z' });
    await createThroughApi('Night backup', { daily: { time: '02:30:00', time_zone: 'Europe/Berlin' } });
    await createThroughApi('Check the build', { cron: { expression: '*/15 9-17 * * 1-5', time_zone: 'Asia/Shanghai' } });
    await t.advance(86_400_000);
    await openTask('Night backup');
    const occurrences = page.getByRole('table', { name: 'Next occurrences' });
    await expect.poll(() => occurrences.textContent(), POLL).toContain('02:30 does not exist on 2030-03-31');
    const rows = await occurrences.getByRole('row').allTextContents();
    expect(rows).toHaveLength(6);
    expect(rows[1]).toContain('Fri 2030-03-29 02:30 GMT+1');
    expect(rows[2]).toContain('Sat 2030-03-30 02:30 GMT+1');
    expect(rows[3]).toContain('Mon 2030-04-01 02:30 GMT+2');
    await page.getByRole('table', { name: 'Delivery history' }).waitFor();
    await page.screenshot({ path: join(RESULTS_DIR, 'task-detail.png'), fullPage: true });
  });

  it('pages through a long delivery history', async () => {
    const id = await createThroughApi('Tick', { every_seconds: 60 });
    for (let i = 0; i < 12; i++) await t.advance(60_000);
    await openTask('Tick');
    const history = page.getByRole('table', { name: 'Delivery history' });
    await expect.poll(() => history.getByRole('row').count(), POLL).toBe(11);
    expect(await history.textContent()).toContain('msg-12');
    await page.getByRole('button', { name: 'Older deliveries' }).click();
    await expect.poll(() => history.getByRole('row').count(), POLL).toBe(3);
    expect(await history.textContent()).toContain('msg-1');
    await page.getByRole('button', { name: 'Newest' }).click();
    await expect.poll(() => history.textContent(), POLL).toContain('msg-12');
    expect(id).toBe('sch_1');
  });

  it('edit with Save sends the change and shows the new target', async () => {
    await createThroughApi('Check the build', { cron: { expression: '*/15 9-17 * * 1-5', time_zone: 'Asia/Shanghai' } });
    await openTask('Check the build');
    await page.getByRole('button', { name: 'Edit' }).click();
    const form = editForm();
    expect(await form.getByLabel('Cron expression').inputValue()).toBe('*/15 9-17 * * 1-5');
    await form.getByLabel('Title').fill('Check the nightly build');
    await form.getByLabel('Cron expression').fill('0 20 * * *');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved. Next target: Mon 2030-01-07 20:00 GMT+8' }).waitFor();
    const [entry] = await catalog();
    expect(entry?.record).toMatchObject({
      title: 'Check the nightly build',
      expression: '0 20 * * *',
      scheduledAt: '2030-01-07T12:00:00.000Z',
    });
    await page.getByRole('heading', { level: 2, name: 'Check the nightly build' }).waitFor();
  });

  it('a conflicting edit keeps what was typed, shows what changed elsewhere and applies the edits to the current version', async () => {
    const id = await createThroughApi('Check the build', { cron: { expression: '0 9 * * *', time_zone: 'UTC' } });
    await openTask('Check the build');
    await page.getByRole('button', { name: 'Edit' }).click();
    const [entry] = await catalog();
    await t.send('PATCH', `/api/sessions/demo/tasks/${id}`, { expected: entry?.record, prompt: 'Changed elsewhere too' });
    await editForm().getByLabel('Title').fill('My title');
    await editForm().getByRole('button', { name: 'Save' }).click();
    const alert = editForm().getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('Not saved: this task was changed elsewhere');
    const changes = await alert.getByRole('table', { name: 'Changed elsewhere' }).textContent();
    expect(changes).toContain('Check the build now');
    expect(changes).toContain('Changed elsewhere too');
    // Nothing typed is lost.
    expect(await editForm().getByLabel('Title').inputValue()).toBe('My title');
    await page.screenshot({ path: join(RESULTS_DIR, 'conflict.png'), fullPage: true });
    await alert.getByRole('button', { name: 'Apply my changes to the current version' }).click();
    await page.getByRole('heading', { level: 2, name: 'My title' }).waitFor();
    expect((await catalog())[0]?.record).toMatchObject({ title: 'My title', prompt: 'Changed elsewhere too' });
  });

  it('after a conflict, discarding loads the current version into the editor', async () => {
    const id = await createThroughApi('Check the build', { cron: { expression: '0 9 * * *', time_zone: 'UTC' } });
    await openTask('Check the build');
    await page.getByRole('button', { name: 'Edit' }).click();
    const [entry] = await catalog();
    await t.send('PATCH', `/api/sessions/demo/tasks/${id}`, { expected: entry?.record, title: 'Renamed elsewhere' });
    await editForm().getByLabel('Title').fill('My title');
    await editForm().getByRole('button', { name: 'Save' }).click();
    await editForm().getByRole('button', { name: 'Discard my changes and load it' }).click();
    await expect.poll(() => editForm().getByLabel('Title').inputValue(), POLL).toBe('Renamed elsewhere');
    await editForm().getByLabel('Title').fill('Third title');
    await editForm().getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { level: 2, name: 'Third title' }).waitFor();
    expect((await catalog())[0]?.record.title).toBe('Third title');
  });

  it('Cancel discards the staged edits', async () => {
    await createThroughApi('Check the build', { cron: { expression: '0 9 * * *', time_zone: 'UTC' } });
    const before = await catalog();
    await openTask('Check the build');
    await page.getByRole('button', { name: 'Edit' }).click();
    await editForm().getByLabel('Title').fill('Not this');
    await editForm().getByLabel('Timing').selectOption({ label: 'Every N seconds' });
    await editForm().getByRole('button', { name: 'Cancel' }).click();
    await editForm().waitFor({ state: 'detached' });
    expect(await page.getByRole('heading', { level: 2, name: 'Check the build' }).isVisible()).toBe(true);
    expect(await catalog()).toEqual(before);
    await page.getByRole('button', { name: 'Edit' }).click();
    expect(await editForm().getByLabel('Title').inputValue()).toBe('Check the build');
  });

  it('delete asks for confirmation, then removes the task', async () => {
    await createThroughApi('Check the build', { cron: { expression: '0 9 * * *', time_zone: 'UTC' } });
    await openTask('Check the build');
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const dialog = page.getByRole('alertdialog');
    await dialog.getByRole('button', { name: 'Keep task' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await catalog()).toHaveLength(1);
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete task' }).click();
    await page.getByRole('status').filter({ hasText: 'Deleted “Check the build”.' }).waitFor();
    await page.getByText('No tasks yet.').waitFor();
    expect(await catalog()).toEqual([]);
  });
});

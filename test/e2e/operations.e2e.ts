// Operating tasks from the web task page in real Chromium against an in-process Host on a test
// clock: a task of a Session whose transcript is damaged shows as failing, on its row and in its
// detail, with the stage, the cause, the attempts and the next retry, and "Retry now" delivers it
// once the Session is repaired; a paused task lets its target pass with nothing delivered and,
// resumed, is scheduled again for its rule's next target; "Run now" delivers an extra reminder
// marked "run now" in the history and the transcript; a delivery that coalesced missed
// occurrences says how many and since when; an operation on a task deleted elsewhere meanwhile
// is refused in words. No serious or critical axe violations on each of these views, and no
// horizontal overflow at 390 px with the new buttons. Screenshots go to test-results/.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { CatalogEntry, DeliveryReceipt } from '../../src/index.ts';
import type { TestHost } from '../host/support.ts';
import { seriousViolations } from './axe.ts';
import { RESULTS_DIR, usePageOnTestHost } from './browser.ts';

let t: TestHost;
let page: Page;
usePageOnTestHost((current) => {
  ({ t, page } = current);
});

const POLL = { timeout: 10_000, interval: 50 };
const catalogRegion = () => page.getByRole('region', { name: /^Tasks/ });
const rowOf = (title: string) => catalogRegion().getByRole('table').locator('tbody tr').filter({ hasText: title });
const detailOf = (title: string) => page.getByRole('region', { name: title });
const historyTable = () => page.getByRole('table', { name: 'Delivery history' });
const notice = (text: string) => page.getByRole('status').filter({ hasText: text });
const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

async function createTask(sessionId: string, args: Record<string, unknown>): Promise<string> {
  const r = await t.create(sessionId, { prompt: `${String(args.title)} now`, ...args });
  if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  return r.body.id;
}

async function entryOf(id: string): Promise<CatalogEntry> {
  const r = await t.get<{ entries: CatalogEntry[] }>(`/api/catalog?id=${id}&limit=1`);
  const [entry] = r.body.entries;
  if (entry === undefined) throw new Error(`no task ${id}`);
  return entry;
}

const historyOf = async (sessionId: string, id: string) =>
  (await t.get<{ records: DeliveryReceipt[] }>(`/api/sessions/${sessionId}/tasks/${id}/history?limit=50`)).body.records;

/** A Session whose transcript is damaged: restoring it fails, so every delivery attempt fails at `resolve`. */
async function breakSession(sessionId: string): Promise<string> {
  const dir = join(t.dataDir, 'sessions');
  await mkdir(dir, { recursive: true });
  const path = join(dir, `${sessionId}.jsonl`);
  await writeFile(path, 'this is not a transcript line\n');
  return path;
}

async function openTask(title: string): Promise<void> {
  await catalogRegion().getByRole('link', { name: title, exact: true }).click();
  await page.getByRole('heading', { level: 2, name: title }).waitFor();
}

async function expectNoSeriousViolations(view: string): Promise<void> {
  expect(await seriousViolations(page), view).toEqual([]);
}

/** The test clock fires only the timers it passes: `advance(0)` fires the run-now delivery, due now. */
const fireDueNow = () => t.advance(0);

describe('operating tasks from the page', () => {
  it('a task of a broken Session shows as failing on its row and in its detail; Retry now delivers it once the Session is repaired', async () => {
    const transcript = await breakSession('broken');
    const id = await createTask('broken', { title: 'Stretch', after_seconds: 60 });
    await createTask('demo', { title: 'Tea', after_seconds: 3600 });
    await t.advance(60_000);

    // The first attempt failed at 08:01 UTC (09:01 in Berlin); the first retry comes 5 s later.
    const row = rowOf('Stretch');
    await row.locator('.badge.state-failing').waitFor();
    await expect
      .poll(() => row.textContent(), POLL)
      .toContain('the Session could not be restored (resolve) — 1 attempt, next retry 09:01:05');
    expect(await row.textContent()).toContain('broken.jsonl:1 is not a JSON line.');
    expect(await row.getByRole('button', { name: 'Retry now “Stretch”' }).isVisible()).toBe(true);
    expect(await row.getByRole('button', { name: /^Run now/ }).count()).toBe(0);
    expect(await rowOf('Tea').locator('.badge.state-scheduled').count()).toBe(1);

    // The retry fails too: the row follows the clock, with the backoff doubled.
    await t.advance(5_000);
    await expect.poll(() => row.textContent(), POLL).toContain('(resolve) — 2 attempts, next retry 09:01:15');
    await catalogRegion().getByLabel('State').selectOption({ label: 'Failing' });
    await expect.poll(() => catalogRegion().locator('a.title-link').allTextContents(), POLL).toEqual(['Stretch']);
    await page.screenshot({ path: join(RESULTS_DIR, 'operations-failing-list.png'), fullPage: true });
    await expectNoSeriousViolations('failing row');

    await openTask('Stretch');
    const detail = detailOf('Stretch');
    expect(await detail.locator('.badge.state-failing').count()).toBe(1);
    const status = detail.locator('.status-text');
    expect(await status.textContent()).toContain('Failing: the Session could not be restored (resolve) — 2 attempts, next retry 09:01:15.');
    expect(await status.textContent()).toContain('Last attempt 09:01:05:');
    expect(await status.textContent()).toContain(`${transcript}:1 is not a JSON line.`);
    await page.getByText('No deliveries yet.').waitFor();
    await page.screenshot({ path: join(RESULTS_DIR, 'operations-failing-detail.png'), fullPage: true });
    await expectNoSeriousViolations('failing detail');

    // Repaired, the Session restores: Retry now delivers at once, before the next retry is due.
    await rm(transcript);
    await detail.getByRole('button', { name: 'Retry now', exact: true }).click();
    await notice('Retrying “Stretch” now.').waitFor();
    await fireDueNow();
    await detail.locator('.badge.state-ended').waitFor();
    await expect.poll(() => historyTable().textContent(), POLL).toContain('msg-1');
    const entry = await entryOf(id);
    expect(entry.status).toBe('inactive');
    expect(entry.failure).toBeUndefined();
    expect(entry.lastDelivery).toMatchObject({ messageId: 'msg-1', deliveredAt: '2030-01-07T08:01:05.000Z' });
    expect(await detail.getByRole('button', { name: /^(Retry now|Run now|Pause|Resume)$/ }).count()).toBe(0);
  });

  it('a paused task lets its target pass with nothing delivered; resumed, it is scheduled for the next target', async () => {
    const id = await createTask('demo', { title: 'Tick', every_seconds: 60 });
    const row = rowOf('Tick');
    await row.locator('.badge.state-scheduled').waitFor();
    await row.getByRole('button', { name: 'Pause “Tick”' }).click();
    await notice('Paused “Tick”: it is not delivered until resumed or run now.').waitFor();
    await row.locator('.badge.state-paused').waitFor();
    // The button became Resume where it was: the focus stays on it.
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')), POLL).toBe('Resume “Tick”');
    expect(await row.locator('.status-note').textContent()).toBe('since 09:00:00');
    expect(await row.locator('td[data-label="Next target"]').textContent()).toContain('paused');
    expect((await entryOf(id)).pausedAt).toBe('2030-01-07T08:00:00.000Z');
    await page.screenshot({ path: join(RESULTS_DIR, 'operations-paused-list.png'), fullPage: true });
    await expectNoSeriousViolations('paused row');

    // The target (08:01 UTC) passes: nothing is delivered.
    await page.getByRole('button', { name: '+1 min' }).click();
    await page.getByRole('button', { name: '+1 min' }).click();
    await expect.poll(() => page.getByRole('group', { name: 'Test clock' }).textContent(), POLL).toContain('09:02');
    expect(await historyOf('demo', id)).toEqual([]);
    expect((await t.get<unknown[]>('/api/sessions/demo/transcript')).body).toEqual([]);
    expect(await row.locator('.badge.state-paused').count()).toBe(1);

    await openTask('Tick');
    const detail = detailOf('Tick');
    expect(await detail.locator('.status-text').textContent()).toContain('Paused since 09:00:00: not delivered until resumed or run now.');
    await page.getByText('No deliveries yet.').waitFor();
    await page.screenshot({ path: join(RESULTS_DIR, 'operations-paused-detail.png'), fullPage: true });
    await expectNoSeriousViolations('paused detail');

    // Resumed at 08:02, the missed occurrences are skipped: the next target is 08:03 UTC.
    await detail.getByRole('button', { name: 'Resume', exact: true }).click();
    await notice('Resumed “Tick”. Next target: Mon 2030-01-07 08:03 GMT+0.').waitFor();
    await row.locator('.badge.state-scheduled').waitFor();
    expect(await row.locator('td[data-label="In Europe/Berlin"]').textContent()).toBe('Mon 2030-01-07 09:03 GMT+1');
    expect(await detail.locator('.status-text').textContent()).toContain('Scheduled: the next target is in 60 s.');
    expect(await detail.getByRole('button', { name: 'Pause', exact: true }).isVisible()).toBe(true);
    const entry = await entryOf(id);
    expect(entry.pausedAt).toBeUndefined();
    expect(entry.record.scheduledAt).toBe('2030-01-07T08:03:00.000Z');
    expect(await historyOf('demo', id)).toEqual([]);
  });

  it("the detail's Pause asks for a note, which the row and the detail then show", async () => {
    const id = await createTask('demo', { title: 'Standup', every_seconds: 600 });
    await openTask('Standup');
    const detail = detailOf('Standup');
    await detail.getByRole('button', { name: 'Pause', exact: true }).click();
    const note = detail.getByLabel('Note (optional, why it is paused)');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id), POLL).toBe('pause-note');
    expect((await entryOf(id)).pausedAt).toBeUndefined();
    await note.fill('room booked out this week');
    await note.press('Enter');
    await notice('Paused “Standup”: it is not delivered until resumed or run now.').waitFor();
    await detail.locator('.badge.state-paused').waitFor();
    expect(await detail.locator('.status-text').textContent()).toContain('room booked out this week');
    await expect.poll(async () => rowOf('Standup').locator('.status-note').textContent(), POLL).toContain('room booked out this week');
    expect(await entryOf(id)).toMatchObject({ pausedAt: '2030-01-07T08:00:00.000Z', pauseNote: 'room booked out this week' });
    await page.screenshot({ path: join(RESULTS_DIR, 'operations-pause-note.png'), fullPage: true });
    await expectNoSeriousViolations('pause note');
  });

  it('Run now delivers an extra reminder, marked "run now" in the history, into the transcript', async () => {
    const id = await createTask('demo', { title: 'Tea', after_seconds: 3600 });
    await openTask('Tea');
    const detail = detailOf('Tea');
    await page.getByText('No deliveries yet.').waitFor();
    await detail.getByRole('button', { name: 'Run now', exact: true }).click();
    await notice('Run now: “Tea” goes out as soon as the Session can take it.').waitFor();
    await fireDueNow();

    const history = historyTable();
    await expect.poll(() => history.textContent(), POLL).toContain('msg-1');
    const first = history.locator('tbody tr').first();
    expect(await first.locator('.badge.manual').textContent()).toBe('run now');
    expect(await first.locator('td[data-label="Late by"]').textContent()).toBe('on time');
    expect((await historyOf('demo', id))[0]).toMatchObject({ messageId: 'msg-1', trigger: 'manual' });
    await page.screenshot({ path: join(RESULTS_DIR, 'operations-run-now.png'), fullPage: true });
    await expectNoSeriousViolations('run-now history');

    await first.getByRole('link', { name: /^Message msg-1 / }).click();
    const log = page.getByRole('log', { name: 'Transcript of demo' });
    await log.waitFor();
    expect(await log.textContent()).toContain('reminder_prompt_json: "Tea now"');
  });

  it('a delivery that coalesced missed occurrences says how many and since when', async () => {
    const id = await createTask('demo', { title: 'Tick', every_seconds: 60 });
    // A jump of the clock (not a walk through each minute): 08:01 … 08:10 fall due at once.
    const r = await t.send('POST', '/api/test/clock', { set: '2030-01-07T08:10:00Z' });
    expect(r.status).toBe(200);
    await openTask('Tick');
    const history = historyTable();
    await expect.poll(() => history.textContent(), POLL).toContain('msg-1');
    const first = history.locator('tbody tr').first();
    expect(await first.locator('.missed').textContent()).toBe('9 missed occurrences coalesced since Mon 2030-01-07 09:01 GMT+1');
    expect(await first.locator('td[data-label="Occurrence"]').textContent()).toContain('Mon 2030-01-07 09:10 GMT+1');
    expect((await historyOf('demo', id))[0]).toMatchObject({ missed: 9, firstMissed: '2030-01-07T08:01:00.000Z' });
    await page.screenshot({ path: join(RESULTS_DIR, 'operations-missed.png'), fullPage: true });
    await expectNoSeriousViolations('missed history');
  });

  it('an operation on a task deleted elsewhere meanwhile is refused in words, and the row goes', async () => {
    const id = await createTask('demo', { title: 'Tea', after_seconds: 3600 });
    const row = rowOf('Tea');
    await row.locator('.badge.state-scheduled').waitFor();
    // The task is deleted elsewhere just before the page's request reaches the Host.
    await page.route('**/pause', async (route) => {
      expect((await t.send('DELETE', `/api/sessions/demo/tasks/${id}`)).status).toBe(200);
      await route.continue();
    });
    await row.getByRole('button', { name: 'Pause “Tea”' }).click();
    await notice('This task no longer exists. (schedule_not_found)').waitFor();
    await row.waitFor({ state: 'detached' });
    await page.getByText('No tasks yet.').waitFor();
  });

  it('fits 390 px with the operations: no horizontal overflow on the list or the detail', async () => {
    await breakSession('broken');
    await createTask('broken', { title: 'A stretch reminder with a long title for a phone', after_seconds: 60 });
    const paused = await createTask('a-rather-long-session-name-for-a-narrow-screen', { title: 'Tick', every_seconds: 300 });
    await createTask('demo', { title: 'Tea', after_seconds: 3600 });
    expect((await t.send('POST', `/api/sessions/a-rather-long-session-name-for-a-narrow-screen/tasks/${paused}/pause`)).status).toBe(200);
    await t.advance(60_000);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await page.getByText('live', { exact: true }).waitFor();
    await rowOf('A stretch reminder').locator('.badge.state-failing').waitFor();
    await rowOf('Tick').locator('.badge.state-paused').waitFor();
    expect(await overflow()).toBe(0);
    for (const button of await catalogRegion().locator('button.op').all()) {
      const box = await button.boundingBox();
      expect(box !== null && box.x >= 0 && box.x + box.width <= 390).toBe(true);
    }
    await page.screenshot({ path: join(RESULTS_DIR, 'operations-mobile-list.png'), fullPage: true });
    await expectNoSeriousViolations('390 px list with operations');

    await openTask('A stretch reminder with a long title for a phone');
    const detail = detailOf('A stretch reminder with a long title for a phone');
    await detail.getByRole('button', { name: 'Retry now', exact: true }).waitFor();
    expect(await overflow()).toBe(0);
    expect(await page.locator('.side-col').evaluate((el) => el.scrollWidth - el.clientWidth)).toBe(0);
    await page.screenshot({ path: join(RESULTS_DIR, 'operations-mobile-detail.png') });
    await expectNoSeriousViolations('390 px failing detail');
  });
});

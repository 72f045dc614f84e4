// The task list at scale in real Chromium against an in-process Host on a test clock: 160 tasks
// searched, filtered, sorted and paged 50 at a time through the paged catalog; a task far down
// opened in view with its address (`#/tasks/sch_n`) surviving reload, back and a direct link;
// history rows with lateness linking to the transcript; per-field form errors and typed
// intervals; the keyboard (tabs with arrow keys, Escape, focus back on the opening row); 390 px
// without horizontal overflow, rows as cards; and no serious or critical axe violations on each
// view. Screenshots go to test-results/.
import { join } from 'node:path';
import type { Page, Route } from 'playwright-core';
import type { CatalogEntry } from '../../src/index.ts';
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
const rows = () => catalogRegion().getByRole('table').locator('tbody tr');
const pagerText = () => catalogRegion().getByRole('navigation', { name: 'Task pages' }).locator('span').textContent();
const titles = () => rows().locator('a.title-link').allTextContents();
const createForm = () => page.getByRole('form', { name: 'Create task' });

/** Creates `n` one-shot tasks, Task 1 soonest, spread over the Sessions alpha and beta. */
async function createMany(n: number): Promise<void> {
  for (let i = 1; i <= n; i++) {
    const r = await t.create(i % 2 === 0 ? 'beta' : 'alpha', {
      title: `Task ${i}`,
      prompt: `Prompt number ${i}`,
      after_seconds: 600 + i * 60,
    });
    if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  }
}

async function reload(): Promise<void> {
  await page.reload();
  await page.getByText('live', { exact: true }).waitFor();
}

async function expectNoSeriousViolations(view: string): Promise<void> {
  expect(await seriousViolations(page), view).toEqual([]);
}

/** True when the element's box lies inside the viewport. */
async function inView(selector: string): Promise<boolean> {
  return page.evaluate((s) => {
    const box = document.querySelector(s)?.getBoundingClientRect();
    return box !== undefined && box.top >= 0 && box.bottom <= window.innerHeight && box.height > 0;
  }, selector);
}

const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

describe('the task list at scale', () => {
  it('searches, filters, sorts and pages 160 tasks, 50 rows at a time', async () => {
    await createMany(160);
    await reload();
    await expect.poll(() => rows().count(), POLL).toBe(50);
    expect(await pagerText()).toBe('1–50 of 160');
    expect((await titles()).slice(0, 3)).toEqual(['Task 1', 'Task 2', 'Task 3']);
    await expectNoSeriousViolations('catalog');
    await page.screenshot({ path: join(RESULTS_DIR, 'task-list.png') });

    const pager = catalogRegion().getByRole('navigation', { name: 'Task pages' });
    // While the next page loads, the pager names the rows on screen and waits for it.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const hold = async (route: Route): Promise<void> => {
      await held;
      await route.continue().catch(() => undefined); // unrouted meanwhile: already sent on
    };
    await page.route('**/api/catalog?*', hold);
    await pager.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => pager.getByRole('button', { name: 'Next' }).isDisabled(), POLL).toBe(true);
    expect(await pagerText()).toBe('1–50 of 160');
    expect((await titles())[0]).toBe('Task 1');
    release();
    await expect.poll(pagerText, POLL).toBe('51–100 of 160');
    expect((await titles())[0]).toBe('Task 51');
    await page.unroute('**/api/catalog?*', hold);
    await pager.getByRole('button', { name: 'Next' }).click();
    await pager.getByRole('button', { name: 'Next' }).click();
    await expect.poll(pagerText, POLL).toBe('151–160 of 160');
    expect(await pager.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
    await pager.getByRole('button', { name: 'Previous' }).click();
    await expect.poll(pagerText, POLL).toBe('101–150 of 160');

    // Search goes back to the first page of the matches.
    await catalogRegion().getByLabel('Search').fill('task 15');
    await expect.poll(pagerText, POLL).toBe('1–11 of 11');
    expect(await titles()).toEqual(['Task 15', ...Array.from({ length: 10 }, (_, i) => `Task ${150 + i}`)]);
    await catalogRegion().getByLabel('Search').fill('prompt number 7');
    await expect.poll(pagerText, POLL).toBe('1–11 of 11');
    await catalogRegion().getByLabel('Search').fill('');
    await catalogRegion().getByLabel('Session', { exact: true }).fill('beta');
    await expect.poll(pagerText, POLL).toBe('1–50 of 80');
    expect((await titles()).slice(0, 2)).toEqual(['Task 2', 'Task 4']);
    await catalogRegion().getByLabel('Order').selectOption({ label: 'Title' });
    await expect.poll(async () => (await titles()).slice(0, 3), POLL).toEqual(['Task 10', 'Task 100', 'Task 102']);
    await catalogRegion().getByLabel('Session', { exact: true }).fill('');
    await catalogRegion().getByLabel('Kind').selectOption('every');
    await expect.poll(() => catalogRegion().textContent(), POLL).toContain('No task matches these filters.');
    await catalogRegion().getByLabel('Kind').selectOption('');

    // The state column and its filter: the first three fall due and are delivered (ended).
    await t.advance(780_000);
    await catalogRegion().getByLabel('State').selectOption({ label: 'Ended' });
    await expect.poll(pagerText, POLL).toBe('1–3 of 3');
    expect(await rows().first().getByText('ended', { exact: true }).count()).toBeGreaterThan(0);
    await catalogRegion().getByLabel('State').selectOption({ label: 'Scheduled' });
    await expect.poll(pagerText, POLL).toBe('1–50 of 157');
    expect(await rows().first().textContent()).toContain('scheduled');
  });

  it('opens a task far down the list beside it, in view, and names it in the address', async () => {
    await createMany(60);
    await reload();
    await expect.poll(() => rows().count(), POLL).toBe(50);
    const link = catalogRegion().getByRole('link', { name: 'Task 48', exact: true });
    await link.scrollIntoViewIfNeeded();
    await link.click();
    const heading = page.getByRole('heading', { level: 2, name: 'Task 48' });
    await heading.waitFor();
    expect(page.url()).toMatch(/#\/tasks\/sch_48$/);
    expect(await inView('#detail-heading')).toBe(true);
    await expect.poll(() => page.evaluate(() => document.activeElement?.id), POLL).toBe('detail-heading');
    await page.screenshot({ path: join(RESULTS_DIR, 'task-list-detail.png') });
    await expectNoSeriousViolations('detail');

    await reload();
    await heading.waitFor();
    await page.goBack();
    await heading.waitFor({ state: 'detached' });
    expect(page.url()).not.toContain('sch_48');
    await page.goForward();
    await heading.waitFor();

    // A link opens the task whatever page the list shows.
    await page.goto(`${t.url}/#/tasks/sch_59`);
    await page.getByRole('heading', { level: 2, name: 'Task 59' }).waitFor();
    await page.goto(`${t.url}/#/tasks/sch_999`);
    await page.getByText('There is no task sch_999.').waitFor();
  });

  it('history rows show how late each delivery was and link to the message in the transcript', async () => {
    const r = await t.create('demo', { title: 'Tick', prompt: 'tick', every_seconds: 60 });
    expect(r.status).toBe(200);
    await t.advance(60_000);
    await page.goto(`${t.url}/#/tasks/${r.body.id}`);
    const history = page.getByRole('table', { name: 'Delivery history' });
    // The test clock delivers at the occurrence itself.
    await expect.poll(() => history.locator('td[data-label="Late by"]').allTextContents(), POLL).toEqual(['on time']);
    await history.getByRole('link', { name: /^Message msg-1 / }).click();
    expect(page.url()).toMatch(/#\/transcripts\/demo\/msg-1$/);
    const marked = page.getByRole('log', { name: 'Transcript of demo' }).locator('li[aria-current="true"]');
    await marked.waitFor();
    expect(await marked.textContent()).toContain('msg-1');
    expect(await page.getByRole('tab', { name: 'Transcripts' }).getAttribute('aria-selected')).toBe('true');
    await expectNoSeriousViolations('transcript');
  });

  it('shows one error per field, at the field, in words for people with the code as a badge, cleared when the field changes', async () => {
    const form = createForm();
    await form.getByLabel('Title').fill('Bad cron');
    await form.getByLabel('Instruction').fill('Never mind.');
    await form.getByLabel('Timing').selectOption({ label: 'Cron' });
    await form.getByLabel('Cron expression').fill('61 * * * *');
    await form.getByRole('button', { name: 'Create task' }).click();
    const cron = form.getByLabel('Cron expression');
    await expect.poll(() => cron.getAttribute('aria-invalid'), POLL).toBe('true');
    const errorId = await cron.getAttribute('aria-describedby');
    const error = page.locator(`[id="${errorId}"]`);
    expect(await error.textContent()).toContain('This cron expression is not valid');
    expect(await error.locator('.code-badge').textContent()).toBe('invalid_rule');
    // The preview's refusal is the same one, shown once.
    expect(await form.locator('.field-error').count()).toBe(1);
    expect(await form.textContent()).not.toContain('JSON');
    await page.screenshot({ path: join(RESULTS_DIR, 'form-error.png') });
    await expectNoSeriousViolations('form error');

    await cron.fill('0 9 * * *');
    await expect.poll(() => form.locator('.field-error').count(), POLL).toBe(0);
    await form.getByLabel('Time zone').fill('Mars/Olympus');
    await form.getByRole('button', { name: 'Create task' }).click();
    const zone = form.getByLabel('Time zone');
    await expect.poll(() => zone.getAttribute('aria-invalid'), POLL).toBe('true');
    expect(await form.locator('.field-error').count()).toBe(1);
    expect(await cron.getAttribute('aria-invalid')).toBeNull();
    await zone.fill('Europe/Berlin');
    await expect.poll(() => form.locator('.field-error').count(), POLL).toBe(0);

    // Intervals typed with a unit.
    await form.getByLabel('Title').fill('Quarter-hourly');
    await form.getByLabel('Timing').selectOption({ label: 'Every N seconds' });
    await form.getByLabel(/^Interval/).fill('15m');
    await form.getByRole('button', { name: 'Create task' }).click();
    await page.getByRole('heading', { level: 2, name: 'Quarter-hourly' }).waitFor();
    const catalog = (await t.get<CatalogEntry[]>('/api/catalog')).body;
    expect(catalog.at(-1)?.record).toMatchObject({ kind: 'every', everySeconds: 900 });
    expect(await page.getByRole('region', { name: 'Quarter-hourly' }).textContent()).toContain('every 15 min');
  });

  it('works with the keyboard: arrow keys move between tabs, Escape closes, the focus returns to the opening row', async () => {
    await createMany(3);
    await reload();
    await page.getByRole('tab', { name: 'Tasks' }).focus();
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id), POLL).toBe('tab-transcripts');
    expect(await page.getByRole('tab', { name: 'Transcripts' }).getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id), POLL).toBe('tab-inspector');
    await expectNoSeriousViolations('inspector');
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id), POLL).toBe('tab-tasks');
    // A key that keeps the selected tab keeps the focus there and leaves no focus move pending:
    // a later change of address back to that tab does not pull the focus onto it.
    await page.keyboard.press('Home');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('tab-tasks');
    const tabSelected = (name: string) => page.getByRole('tab', { name }).getAttribute('aria-selected');
    await page.evaluate(() => {
      window.location.hash = '#/inspector';
    });
    await expect.poll(() => tabSelected('Inspector'), POLL).toBe('true');
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.evaluate(() => {
      window.location.hash = '#/tasks';
    });
    await expect.poll(() => tabSelected('Tasks'), POLL).toBe('true');
    // Effects run after the frame that shows the render: two frames and a task let them run.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 0)))));
    expect(await page.evaluate(() => document.activeElement?.id)).not.toBe('tab-tasks');
    await page.getByRole('tab', { name: 'Tasks' }).focus();

    const link = catalogRegion().getByRole('link', { name: 'Task 2', exact: true });
    await link.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 2, name: 'Task 2' }).waitFor();
    await page.getByRole('button', { name: 'Delete', exact: true }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('alertdialog').waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.id), POLL).toBe('confirm-delete');
    await page.keyboard.press('Escape');
    await page.getByRole('alertdialog').waitFor({ state: 'detached' });
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent), POLL).toBe('Delete');

    await page.getByRole('button', { name: 'Edit' }).click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.id), POLL).toBe('edit-title');
    await page.keyboard.type(' (typed)');
    // Escape never throws typed edits away.
    await page.keyboard.press('Escape');
    expect(await page.getByRole('form', { name: 'Edit task' }).getByLabel('Title').inputValue()).toBe('Task 2 (typed)');
    await page.getByRole('form', { name: 'Edit task' }).getByRole('button', { name: 'Cancel' }).click();
    // The focus moves in the frame after the editor closes.
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent), POLL).toBe('Edit');

    await page.keyboard.press('Escape');
    await page.getByRole('heading', { level: 2, name: 'Task 2' }).waitFor({ state: 'detached' });
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-open-task')), POLL).toBe('sch_2');
  });

  it('fits 390 px without horizontal overflow: the rows become cards, the detail opens over the list', async () => {
    await createMany(8);
    const r = await t.create('a-rather-long-session-name-for-a-narrow-screen', {
      title: 'A task with a long title that has to wrap on a phone screen',
      prompt: 'Check that every part of this page wraps instead of overflowing to the right.',
      weekly: { time: '07:45:00', time_zone: 'America/Argentina/Buenos_Aires', weekdays: [1, 2, 3, 4, 5, 6, 7] },
    });
    expect(r.status).toBe(200);
    await page.setViewportSize({ width: 390, height: 844 });
    await reload();
    await expect.poll(() => rows().count(), POLL).toBe(9);
    expect(await overflow()).toBe(0);
    expect(
      await rows()
        .first()
        .evaluate((row) => getComputedStyle(row).display),
    ).toBe('block');
    await page.screenshot({ path: join(RESULTS_DIR, 'mobile-list.png'), fullPage: true });
    await expectNoSeriousViolations('390 px list');

    await catalogRegion()
      .getByRole('link', { name: /^A task with a long title/ })
      .click();
    await page.getByRole('heading', { level: 2, name: /^A task with a long title/ }).waitFor();
    expect(await inView('#detail-heading')).toBe(true);
    expect(await overflow()).toBe(0);
    expect(await page.locator('.side-col').evaluate((el) => el.scrollWidth - el.clientWidth)).toBe(0);
    await page.screenshot({ path: join(RESULTS_DIR, 'mobile-detail.png') });
    await expectNoSeriousViolations('390 px detail');
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByRole('form', { name: 'Edit task' }).waitFor();
    expect(await page.locator('.side-col').evaluate((el) => el.scrollWidth - el.clientWidth)).toBe(0);
    expect(await overflow()).toBe(0);
    await page.screenshot({ path: join(RESULTS_DIR, 'mobile-edit.png') });
    await expectNoSeriousViolations('390 px edit');
    await page.getByRole('form', { name: 'Edit task' }).getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent), POLL).toBe('Edit');
    await page.keyboard.press('Escape');
    await page.getByRole('heading', { level: 2, name: /^A task with a long title/ }).waitFor({ state: 'detached' });
    await page.getByRole('tab', { name: 'Inspector' }).click();
    await page.getByText('streaming', { exact: true }).waitFor();
    expect(await overflow()).toBe(0);
    await page.screenshot({ path: join(RESULTS_DIR, 'mobile-inspector.png') });
  });
});

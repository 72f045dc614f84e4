// The Inspector tab in real Chromium against an in-process Host on a test clock: the actor tree
// with a task's state, title and next target; the live entry stream showing a recurring task
// actor go scheduled → overdue → delivering → scheduled when the clock reaches it; and the
// Session filter; and the status bar's time-zone data versions (the one in use, and the one the
// schedule records once it has been written). At 10,000 live tasks over 500 Sessions (seeded as a
// stored schedule) the tab connects, lists 50 Sessions and 100 tasks with the number of the rest,
// finds tasks by text and by Session, and the page still answers. Screenshots of the tab are
// saved as test-results/inspector.png and test-results/inspector-10k.png.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { currentTzdata } from '../../src/runtime/tzdataVersion.ts';
import { START, startTestHost, type TestHost } from '../host/support.ts';
import { hourlyRows, seededDataDir } from '../support/hourlyTasks.ts';
import { launchChromium, openPage, RESULTS_DIR, usePageOnTestHost } from './browser.ts';

let t: TestHost;
let page: Page;

const POLL = { timeout: 10_000, interval: 50 };
const tree = () => page.getByRole('list', { name: 'Actor tree' });
const stream = () => page.getByRole('table', { name: 'Inspector events' });
/** The tree item of an actor, named by its own line: `<kind> <id> <state> …`. */
const actorItem = (kind: string, id: string) => tree().getByRole('listitem', { name: new RegExp(`^${kind} ${id} `) });

/** The text of an actor's own line in the tree (without its children), whitespace collapsed. */
async function lineOf(item: Locator): Promise<string> {
  const line = await item.getAttribute('aria-labelledby');
  const text = await page.locator(`[id="${line}"]`).textContent();
  return (text ?? '').replace(/\s+/g, ' ').trim();
}

async function createTask(sessionId: string, title: string, everySeconds: number): Promise<string> {
  const r = await t.create(sessionId, { title, prompt: `${title} now`, every_seconds: everySeconds });
  if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  return r.body.id;
}

async function openInspector(): Promise<void> {
  await page.getByRole('tab', { name: 'Inspector' }).click();
  await page.getByText('streaming', { exact: true }).waitFor();
}

/** The states the stream shows for an actor's state changes, oldest first. */
function statesOf(id: string): Promise<string[]> {
  return stream()
    .getByRole('row')
    .evaluateAll(
      (rows, actorId) =>
        rows
          .map((row) => [...(row as HTMLTableRowElement).cells].map((cell) => cell.textContent?.trim() ?? ''))
          .filter((cells) => cells[2]?.split(' ').at(-1) === actorId && cells[3]?.endsWith('→'))
          .map((cells) => cells[4] ?? '')
          .reverse(),
      id,
    );
}

describe('the Inspector tab', () => {
  usePageOnTestHost((current) => {
    ({ t, page } = current);
  });

  it('shows a recurring task actor go scheduled → overdue → delivering → scheduled as the clock reaches it', async () => {
    await openInspector();
    await actorItem('supervisor', 'supervisor').waitFor();
    expect(await stream().isVisible()).toBe(true);

    const id = await createTask('demo', 'Tick', 60);
    const task = actorItem('task', id);
    await expect.poll(() => lineOf(task), POLL).toMatch(/^task sch_1 scheduled Tick next Mon 2030-01-07 09:01 GMT\+1 \(in 60 s\)/);
    expect(await actorItem('session', 'session:demo').isVisible()).toBe(true);
    await expect.poll(() => statesOf(id), POLL).toEqual(['scheduled']);

    await page.getByRole('button', { name: '+1 min' }).click();
    await expect.poll(() => statesOf(id), POLL).toEqual(['scheduled', 'overdue', 'delivering', 'scheduled']);
    await expect.poll(() => lineOf(task), POLL).toContain('next Mon 2030-01-07 09:02 GMT+1');
    expect(await lineOf(task)).toContain('last event delivery.committed');
    // The Session actor went through its delivery attempt too.
    await expect.poll(() => statesOf('session:demo'), POLL).toEqual(['idle', 'delivering', 'committing', 'idle']);

    const entryCount = await stream().getByRole('row').count();
    await page.getByLabel('State changes only').check();
    const changes = () => stream().getByRole('row').allInnerTexts();
    await expect.poll(async () => (await changes()).slice(1).every((row) => row.includes('→')), POLL).toBe(true);
    const rows = await changes();
    expect(rows.length).toBeGreaterThan(8);
    expect(rows.length).toBeLessThan(entryCount);
    expect(await statesOf(id)).toEqual(['scheduled', 'overdue', 'delivering', 'scheduled']);
    await page.screenshot({ path: join(RESULTS_DIR, 'inspector.png'), fullPage: true });
  });

  it('the status bar shows the time-zone data in use and the version the schedule records', async () => {
    await openInspector();
    const status = page.getByTestId('tzdata-status');
    const text = async () => (await status.textContent())?.replace(/\s+/g, ' ').trim();
    // A fresh Host has written nothing yet, so no version is recorded.
    expect((await t.get('/api/drift')).body).toEqual({ tzdata: currentTzdata(), tasks: [] });
    await expect.poll(text, POLL).toBe(`Time-zone data ${currentTzdata()} · schedule version not recorded yet`);
    // A write records the version in use; the status follows the change without a reload.
    await createTask('demo', 'Tick', 60);
    await expect.poll(text, POLL).toBe(`Time-zone data ${currentTzdata()} · schedule written with ${currentTzdata()}`);
    expect(await status.locator('.badge').count()).toBe(0);
    expect(await page.getByText('streaming', { exact: true }).isVisible()).toBe(true);
  });

  it('the Session filter narrows the tree and the stream to one Session', async () => {
    const mine = await createTask('demo', 'Tick', 60);
    const theirs = await createTask('other', 'Tock', 120);
    await openInspector();
    await actorItem('task', theirs).waitFor();
    expect(await actorItem('task', mine).isVisible()).toBe(true);

    await page.getByLabel('Session', { exact: true }).fill('other');
    await expect.poll(() => actorItem('task', mine).count(), POLL).toBe(0);
    await page.getByText('streaming', { exact: true }).waitFor();
    expect(await actorItem('task', theirs).isVisible()).toBe(true);
    expect(await actorItem('session', 'session:demo').count()).toBe(0);
    expect(await actorItem('supervisor', 'supervisor').isVisible()).toBe(true);

    await t.advance(120_000);
    await expect.poll(() => statesOf(theirs), POLL).toEqual(['scheduled', 'overdue', 'delivering', 'scheduled']);
    expect(await statesOf(mine)).toEqual([]);
    expect(await stream().textContent()).not.toContain('session:demo');

    await page.getByLabel('Session', { exact: true }).fill('');
    await actorItem('task', mine).waitFor();
    await expect.poll(() => statesOf(mine), POLL).toContain('delivering');
  });
});

describe('the Inspector tab at 10,000 live tasks', () => {
  const TASKS = 10_000;
  const SESSIONS = 500;
  let browser: Browser;
  let errors: string[];
  let dir: string;
  beforeAll(async () => {
    // Task i is sch_<i> in session-<i % 500>, due i seconds after the clock's start.
    dir = await seededDataDir(hourlyRows(TASKS, SESSIONS, START));
    // Every task keeps a live actor: the Inspector's worst case.
    t = await startTestHost({ keepDataDir: dir, config: { passivationHorizonMs: null }, demoAgent: false });
    browser = await launchChromium();
    ({ page, errors } = await openPage(browser, t.url));
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  const sessionList = () => page.getByRole('list', { name: 'Sessions by due work' });
  const taskNote = () => page.getByTestId('inspector-task-note');
  const noteText = async () => ((await taskNote().textContent()) ?? '').replace(/\s+/g, ' ').trim();
  const taskItems = () => tree().locator('li.actor.task');

  it('connects, lists 50 Sessions and 100 tasks with the number of the rest, filters, and the page still answers', async () => {
    expect(t.host.inspector.view().counts.task).toBe(TASKS);
    await openInspector();
    await expect.poll(() => sessionList().getByRole('listitem').count(), POLL).toBe(51);
    expect(await sessionList().getByRole('listitem').last().textContent()).toBe('… and 450 more Sessions');
    // The earliest next targets first: session-1 holds sch_1.
    expect(await sessionList().getByRole('button').first().textContent()).toBe('session-1');
    await expect.poll(noteText, POLL).toBe('Showing 100 of 10,000 live tasks — 9,900 more; narrow them with Find tasks or a Session.');
    expect(await taskItems().count()).toBe(100);
    await actorItem('supervisor', 'supervisor').waitFor();
    await page.screenshot({ path: join(RESULTS_DIR, 'inspector-10k.png') });

    // sch_777 and sch_7770 … sch_7779.
    await page.getByLabel('Find tasks').fill('sch_777');
    await expect.poll(noteText, POLL).toBe('Showing 11 of 11 tasks matching “sch_777”.');
    await expect.poll(() => taskItems().count(), POLL).toBe(11);
    expect(await lineOf(actorItem('task', 'sch_777'))).toMatch(/^task sch_777 scheduled Task 777: review the deploy queue next /);

    await page.getByLabel('Find tasks').fill('');
    await page.getByLabel('Session', { exact: true }).fill('session-7');
    await expect
      .poll(() => sessionList().getByRole('listitem').allTextContents(), POLL)
      .toEqual([expect.stringMatching(/^session-7\s*idle\s*0 due\s*20 tasks/)]);
    await expect.poll(noteText, POLL).toBe('Showing 20 of 20 live tasks.');
    expect(await actorItem('session', 'session:session-7').isVisible()).toBe(true);
    await page.getByText('streaming', { exact: true }).waitFor();

    // Deliveries stream for the tasks in view and the page keeps up.
    await t.advance(7_000);
    await expect.poll(() => lineOf(actorItem('task', 'sch_7')), POLL).toContain('last event delivery.committed');
    const answered = await page.evaluate(() => ({ items: document.querySelectorAll('li.actor').length, title: document.title }));
    expect(answered.items).toBeLessThan(100);
    expect(answered.title).not.toBe('');
    expect(errors).toEqual([]);
  });
});

// The Inspector tab's cluster view in real Chromium: two Host replicas on one PGlite database,
// their shard keepers stepped until they hold 128 shards each, the page open on the first. The
// view lists both Hosts with their shard counts and ranges, marks the replica the page is on,
// shows no unowned shard, and passes the accessibility check. A screenshot of the tab is saved as
// test-results/cluster.png.
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startTestHost, type TestHost } from '../host/support.ts';
import { pgliteListener, usePglite } from '../storage/postgresHarness.ts';
import { seriousViolations } from './axe.ts';
import { launchChromium, openPage, RESULTS_DIR } from './browser.ts';

const db = usePglite();
let browser: Browser;
const running: TestHost[] = [];
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  for (const t of running.splice(0)) await t.close();
});

async function replica(schema: string, hostId: string): Promise<TestHost> {
  const t = await startTestHost({
    database: { pool: db.pool, schema, hostId, listen: pgliteListener(() => db.db), autoStart: false, keeperPool: db.pool },
  });
  running.push(t);
  return t;
}

/** The rows of the Hosts table as the page shows them, whitespace collapsed. */
const hostRows = (page: Page) =>
  page
    .getByRole('table', { name: 'Hosts and their shards' })
    .locator('tbody tr')
    .allInnerTexts()
    .then((rows) => rows.map((row) => row.replace(/\s+/g, ' ').trim()));

describe('the cluster view', () => {
  it('lists both replicas with their shards and marks the one the page is on', async () => {
    const schema = `host_replica_e2e_${Math.random().toString(36).slice(2, 10)}`;
    db.schemas.push(schema);
    const a = await replica(schema, 'replica-a');
    const b = await replica(schema, 'replica-b');
    for (let round = 0; round < 3; round++) {
      await a.host.cluster?.step();
      await b.host.cluster?.step();
    }
    const { page, errors } = await openPage(browser, a.url);
    await page.getByRole('tab', { name: 'Inspector' }).click();
    const view = page.getByTestId('cluster-view');
    await view.waitFor();
    await expect
      .poll(() => hostRows(page), { timeout: 10_000, interval: 100 })
      .toEqual([expect.stringMatching(/^replica-a this replica 128 0-127 /), expect.stringMatching(/^replica-b 128 128-255 /)]);
    expect(await view.getByRole('heading', { level: 2 }).textContent()).toMatch(/^Cluster\s+2 Hosts · 256 shards$/);
    expect(await page.locator('tr[aria-current="true"]').textContent()).toContain('replica-a');
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: join(RESULTS_DIR, 'cluster.png') });
    await page.context().close();
    expect(errors).toEqual([]);
  });
});

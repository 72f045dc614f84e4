// Benchmark: the web task page at scale, in real Chromium (/usr/bin/chromium through
// playwright-core, or CHROMIUM_PATH), against the reference Host run as `npm start` runs it (a
// child process, on a test clock) holding 10,000 and then 100,000 tasks (support/consoleDomain.ts:
// every kind and state, failing tasks in broken Sessions), while the clock moves on in real time
// so that about 20 deliveries fall due every second. For each size it measures the time from a
// filter change (search, state, Session, kind; 30 of them) to the matching rows painted, in the
// page; the longest main-thread task (a PerformanceObserver of long tasks, from the page's first
// rows on); the requests per second the page sends while left alone for 20 s with deliveries
// flowing (the event stream aside); the deliveries per second achieved; and the Host's resident
// memory. At 100,000 it saves screenshots (desktop 1280×900, phone 390×844) to /tmp/shots/.
// Goals: filter-to-rows p99 < 500 ms, longest task < 200 ms, ≤ 2 requests/s idle.
// CONSOLE_TASKS=10000,100000 picks the sizes; CONSOLE_IDLE_MS the idle window; CONSOLE_VERBOSE=1
// prints each change's time.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { type Browser, chromium, type Page } from 'playwright-core';
import { installRowChecks, type RowControls } from './support/consoleChecks.ts';
import { DELIVERIES_PER_SECOND, sessionCount, writeConsoleDataDir } from './support/consoleDomain.ts';
import { fmt } from './support/domains.ts';
import { quantile } from './support/stats.ts';

const SIZES = (process.env.CONSOLE_TASKS ?? '10000,100000').split(',').map(Number);
const IDLE_MS = Number(process.env.CONSOLE_IDLE_MS ?? 20_000);
const CHANGES = 30;
const START = '2030-01-07T08:00:00.000Z';
const CLOCK_STEP_MS = 250;
const SHOTS = '/tmp/shots';

interface ChildHost {
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

/** Starts `npm start`'s program on `dataDir` in test-clock mode; resolves once it listens. */
async function startHost(dataDir: string): Promise<ChildHost> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'host/main.ts'], {
    env: { ...process.env, PORT: '0', DATA_DIR: dataDir, SCHEDULE_TEST_CLOCK: START, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the Host exited with ${code} before it listened`)));
    // Every line is read, so the Host never blocks on a full pipe.
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      const logged = /^\{/.test(line) ? (JSON.parse(line) as { url?: unknown }) : {};
      if (typeof logged.url === 'string') resolve(logged.url);
    });
  });
  return {
    url,
    pid: child.pid ?? 0,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Resident and peak resident memory of a process, MiB. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

/** Moves the Host's clock on by the step every step of real time; counts the deliveries from the event stream. */
function driveClock(url: string): { stop(): Promise<void>; delivered(): number } {
  let running = true;
  let delivered = 0;
  const abort = new AbortController();
  void (async () => {
    const response = await fetch(`${url}/api/events`, { signal: abort.signal });
    const reader = response.body?.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const chunk = await reader?.read().catch(() => undefined);
      if (chunk === undefined || chunk.done) return;
      buffer += decoder.decode(chunk.value, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (!block.startsWith('event: delivery')) continue;
        const data = JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? '{}') as { lines?: { role?: string }[] };
        delivered += (data.lines ?? []).filter((l) => l.role === 'user').length;
      }
    }
  })();
  const loop = (async () => {
    while (running) {
      const started = Date.now();
      await fetch(`${url}/api/test/clock`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ advanceMs: CLOCK_STEP_MS }),
      });
      const rest = CLOCK_STEP_MS - (Date.now() - started);
      if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
    }
  })();
  return {
    delivered: () => delivered,
    async stop() {
      running = false;
      await loop;
      abort.abort();
    },
  };
}

/** The long-task observer, installed before the page's own scripts. */
const LONG_TASKS = `(() => {
  window.benchLongest = 0;
  window.benchLongTasks = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      window.benchLongest = Math.max(window.benchLongest, entry.duration);
      window.benchLongTasks += 1;
    }
  }).observe({ type: 'longtask', buffered: true });
})();`;

/** One filter change: the controls set (element id → value) and the rows expected. */
interface Change {
  readonly set: ReadonlyArray<readonly [string, string]>;
  readonly expect: RowControls;
}

/** The cycle of changes: each leads to rows the previous rows do not all match. */
function changes(size: number): Change[] {
  const sessions = sessionCount(size);
  const out: Change[] = [];
  for (let cycle = 0; out.length < CHANGES; cycle++) {
    const n = 11 + 12 * cycle;
    const session = (7 + 13 * cycle) % sessions;
    const kind = session % 2 === 0 ? 'weekly' : 'daily';
    out.push(
      {
        set: [
          ['catalog-search', ''],
          ['catalog-session', ''],
          ['catalog-kind', ''],
          ['catalog-status', 'paused'],
        ],
        expect: { state: 'paused' },
      },
      { set: [['catalog-status', 'failing']], expect: { state: 'failing' } },
      { set: [['catalog-status', 'inactive']], expect: { state: 'inactive' } },
      {
        set: [
          ['catalog-status', ''],
          ['catalog-search', `task ${n}`],
        ],
        expect: { text: `task ${n}` },
      },
      {
        set: [
          ['catalog-search', ''],
          ['catalog-session', `session-${session}`],
        ],
        expect: { sessionId: `session-${session}` },
      },
      { set: [['catalog-kind', kind]], expect: { sessionId: `session-${session}`, kind } },
    );
  }
  return out.slice(0, CHANGES);
}

/** Makes the change in the page and answers the milliseconds until the matching rows were painted. */
function timeChange(page: Page, change: Change): Promise<number> {
  return page.evaluate(async ({ set, expect }) => {
    const check = (window as unknown as { consoleCheck: (c: RowControls) => { rows: number; busy: boolean; bad: string[] } }).consoleCheck;
    const agree = () => {
      const v = check(expect);
      return v.rows > 0 && !v.busy && v.bad.length === 0;
    };
    const t0 = performance.now();
    for (const [id, value] of set) {
      const element = document.getElementById(id) as HTMLInputElement | HTMLSelectElement;
      element.value = value;
      element.dispatchEvent(new Event(element.tagName === 'SELECT' ? 'change' : 'input', { bubbles: true }));
    }
    await new Promise<void>((resolve, reject) => {
      const give = setTimeout(() => reject(new Error(`no agreement with ${JSON.stringify(expect)} in 30 s`)), 30_000);
      const tick = () => {
        if (!agree()) return void requestAnimationFrame(tick);
        // One more frame: the rows have been painted.
        requestAnimationFrame(() => {
          clearTimeout(give);
          resolve();
        });
      };
      requestAnimationFrame(tick);
    });
    return performance.now() - t0;
  }, change);
}

const longest = (page: Page) => page.evaluate(() => (window as unknown as { benchLongest: number }).benchLongest);
const resetLongest = (page: Page) => page.evaluate(() => void Object.assign(window, { benchLongest: 0, benchLongTasks: 0 }));

interface Figures {
  readonly size: number;
  readonly loadMs: number;
  readonly firstRowsMs: number;
  readonly filterP50: number;
  readonly filterP99: number;
  readonly filterMax: number;
  readonly longestLoad: number;
  readonly longestTask: number;
  readonly idleRequestsPerSecond: number;
  readonly deliveriesPerSecond: number;
  readonly rss: number;
  readonly peak: number;
}

async function measure(browser: Browser, size: number): Promise<Figures> {
  const { dataDir, cleanup } = writeConsoleDataDir(size, START);
  const loadStarted = performance.now();
  const host = await startHost(dataDir);
  const loadMs = performance.now() - loadStarted;
  const clock = driveClock(host.url);
  try {
    const context = await browser.newContext({ timezoneId: 'Europe/Berlin', locale: 'en-GB', viewport: { width: 1280, height: 900 } });
    await context.addInitScript({ content: LONG_TASKS });
    const page = await context.newPage();
    page.setDefaultTimeout(60_000);
    const requests: number[] = [];
    page.on('request', (request) => {
      const path = new URL(request.url()).pathname;
      if (path.startsWith('/api/') && path !== '/api/events') requests.push(performance.now());
    });
    const opened = performance.now();
    await page.goto(host.url);
    await page.locator('table.catalog-table tbody tr').first().waitFor();
    const firstRowsMs = performance.now() - opened;
    const longestLoad = await longest(page);
    await page.evaluate(installRowChecks());
    await resetLongest(page);

    // Left alone with deliveries flowing.
    const deliveredBefore = clock.delivered();
    const idleFrom = performance.now();
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const idleSeconds = (performance.now() - idleFrom) / 1000;
    const idleRequests = requests.filter((at) => at >= idleFrom).length;
    const deliveriesPerSecond = (clock.delivered() - deliveredBefore) / idleSeconds;

    const times: number[] = [];
    for (const change of changes(size)) {
      const ms = await timeChange(page, change);
      if (process.env.CONSOLE_VERBOSE === '1') console.log(`${size}: ${JSON.stringify(change.expect)} ${fmt(ms, 0)} ms`);
      times.push(ms);
    }
    times.sort((a, b) => a - b);
    const longestTask = await longest(page);

    if (size >= 100_000) {
      mkdirSync(SHOTS, { recursive: true });
      await page.selectOption('#catalog-kind', '');
      await page.fill('#catalog-session', '');
      await page.selectOption('#catalog-status', '');
      await page.waitForFunction(() => document.querySelector('table.catalog-table')?.getAttribute('aria-busy') === 'false');
      await page.locator('nav.pager').waitFor();
      await page.screenshot({ path: join(SHOTS, 'console-100k-desktop.png') });
      await page.setViewportSize({ width: 390, height: 844 });
      await page.screenshot({ path: join(SHOTS, 'console-100k-phone.png') });
    }
    const { rss, peak } = memoryOf(host.pid);
    await context.close();
    return {
      size,
      loadMs,
      firstRowsMs,
      filterP50: quantile(times, 0.5),
      filterP99: quantile(times, 0.99),
      filterMax: times.at(-1) ?? Number.NaN,
      longestLoad,
      longestTask,
      idleRequestsPerSecond: idleRequests / idleSeconds,
      deliveriesPerSecond,
      rss,
      peak,
    };
  } finally {
    await clock.stop();
    await host.stop();
    cleanup();
  }
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
});
const results: Figures[] = [];
try {
  for (const size of SIZES) results.push(await measure(browser, size));
} finally {
  await browser.close();
}

console.log(
  `The web task page in Chromium against the reference Host (a child process, JSON storage, test clock moving in real time, ${DELIVERIES_PER_SECOND} deliveries due per second), ${CHANGES} filter changes, ${IDLE_MS / 1000} s idle; Node ${process.version}`,
);
console.log('');
console.log(`| measure | ${results.map((r) => `${r.size.toLocaleString('en')} tasks`).join(' | ')} |`);
console.log(`|---|${results.map(() => '---:').join('|')}|`);
const row = (label: string, value: (r: Figures) => string) => console.log(`| ${label} | ${results.map(value).join(' | ')} |`);
row('Host start (load the schedule, listen), s', (r) => fmt(r.loadMs / 1000, 1));
row('page open → first rows, ms', (r) => fmt(r.firstRowsMs, 0));
row('filter change → matching rows painted, p50 ms', (r) => fmt(r.filterP50, 0));
row('filter change → matching rows painted, p99 ms', (r) => fmt(r.filterP99, 0));
row('filter change → matching rows painted, max ms', (r) => fmt(r.filterMax, 0));
row('longest main-thread task while loading, ms', (r) => fmt(r.longestLoad, 0));
row('longest main-thread task after the first rows, ms', (r) => fmt(r.longestTask, 0));
row('requests per second while idle (event stream aside)', (r) => fmt(r.idleRequestsPerSecond, 2));
row('deliveries per second while idle', (r) => fmt(r.deliveriesPerSecond, 1));
row('Host resident memory at the end / peak, MiB', (r) => `${fmt(r.rss, 0)} / ${fmt(r.peak, 0)}`);
console.log('');
console.log('goals: filter change → rows p99 < 500 ms, longest task < 200 ms, ≤ 2 requests/s idle');

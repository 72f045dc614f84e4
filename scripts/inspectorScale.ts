// Measures the Inspector tab at scale: `npx tsx scripts/inspectorScale.ts [tasks …]` (default
// 10000 100000). For each size it seeds a stored schedule of that many hourly tasks over
// tasks/20 Sessions, every one with a live actor (passivation off: the Inspector's worst case),
// starts the reference Host on a test clock, and in Chromium opens the page on the Inspector tab.
// It prints: the Host's start, the server's summary (a fresh one for a new query) against the
// whole view (`GET /api/inspect`) for comparison, the time from navigation to "streaming", the
// longest main-thread task the page ran (PerformanceObserver `longtask`) while connecting and
// then while the test clock delivers a burst of about 600 tasks, and how long the page then takes
// to answer an evaluate. Nothing is asserted; figures only. `TAB=transcripts` opens another tab
// instead (the page without the Inspector, for comparison); `COUNT_SSE=1` also counts what the
// page's two streams carry during the burst; `PROFILE=dir` writes the page's CPU profile of the
// burst there (open it in Chromium's DevTools, Performance).
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import superjson from 'superjson';
import { createHost } from '../host/createHost.ts';
import { launchChromium } from '../test/e2e/browser.ts';
import { hourlyRows, seededDataDir } from '../test/support/hourlyTasks.ts';

const START = '2030-01-07T08:00:00.000Z';
const sizes = process.argv.slice(2).map(Number);

const ms = (n: number) => `${n.toFixed(0)} ms`;
const timed = <T>(run: () => T): [T, number] => {
  const t0 = performance.now();
  const out = run();
  return [out, performance.now() - t0];
};

async function measure(n: number): Promise<void> {
  // n / 3600 tasks come due each second of the clock.
  const dir = await seededDataDir(hourlyRows(n, Math.max(1, Math.round(n / 20)), START, 3600));
  const [hostStart, startMs] = timed(() =>
    createHost({
      dataDir: dir,
      port: 0,
      testClock: START,
      demoAgent: false,
      config: { passivationHorizonMs: null },
      logger: { warn() {}, error() {} },
    }),
  );
  const t0 = performance.now();
  const host = await hostStart;
  const started = performance.now() - t0 + startMs;
  const { inspector } = host;
  const [summary, summaryMs] = timed(() => superjson.stringify(inspector.summary({ tasks: 100, sessions: 50, limit: 200 })));
  const [, filteredMs] = timed(() => superjson.stringify(inspector.summary({ tasks: 100, sessions: 50, limit: 200, text: 'sch_777' })));
  const [whole, wholeMs] = timed(() => inspector.snapshot({ limit: 200 }));
  console.log(`\n### ${n.toLocaleString('en')} live tasks, ${Math.round(n / 20).toLocaleString('en')} Sessions`);
  console.log(
    `Host start (schedule opened, actors spawned): ${ms(started)}; live actors ${inspector.view().actors.length.toLocaleString('en')}`,
  );
  console.log(`summary (server): ${ms(summaryMs)}, ${(summary.length / 1024).toFixed(0)} KiB; with a text filter ${ms(filteredMs)}`);
  console.log(`whole view (GET /api/inspect, for comparison): ${ms(wholeMs)}, ${(whole.length / 2 ** 20).toFixed(1)} MiB`);

  const browser = await launchChromium();
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(120_000);
    await page.addInitScript(() => {
      const w = window as unknown as { longTasks: number[] };
      w.longTasks = [];
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) w.longTasks.push(entry.duration);
      }).observe({ type: 'longtask', buffered: true });
    });
    const c0 = performance.now();
    await page.goto(`${host.url}/#/${process.env.TAB ?? 'inspector'}`);
    if (process.env.TAB === undefined) {
      await page.getByText('streaming', { exact: true }).waitFor();
      await page.getByTestId('inspector-task-note').waitFor();
    } else await page.waitForTimeout(3000);
    const connectMs = performance.now() - c0;
    const longest = () =>
      page.evaluate(() => {
        const w = window as unknown as { longTasks: number[] };
        const max = Math.max(0, ...w.longTasks);
        w.longTasks = [];
        return max;
      });
    const connectLongest = await longest();
    console.log(`page: navigation → "streaming" ${ms(connectMs)}; longest main-thread task while connecting ${ms(connectLongest)}`);

    // A burst: about 600 tasks come due over ten steps of the test clock, delivered while the page watches.
    const stepMs = Math.max(1000, Math.round(216_000_000 / n));
    const counts = process.env.COUNT_SSE
      ? ['/api/events', '/api/inspect/events?limit=200&sessions=50&tasks=100'].map((path) => {
          let messages = 0;
          let bytes = 0;
          const abort = new AbortController();
          void fetch(`${host.url}${path}`, { signal: abort.signal }).then(async (r) => {
            const reader = r.body?.getReader();
            for (;;) {
              const chunk = await reader?.read().catch(() => undefined);
              if (chunk === undefined || chunk.done) return;
              bytes += chunk.value.length;
              messages += new TextDecoder().decode(chunk.value).split('\n\n').length - 1;
            }
          });
          return () => {
            abort.abort();
            return { path, messages, bytes };
          };
        })
      : undefined;
    const profiler = process.env.PROFILE === undefined ? undefined : await context.newCDPSession(page);
    await profiler?.send('Profiler.enable');
    await profiler?.send('Profiler.start');
    const b0 = performance.now();
    for (let i = 0; i < 10; i++) {
      const r = await fetch(`${host.url}/api/test/clock`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ advanceMs: stepMs }),
      });
      if (r.status !== 200) throw new Error(`advance failed: ${r.status}`);
    }
    await host.service.whenIdle();
    const burstMs = performance.now() - b0;
    const e0 = performance.now();
    const items = await page.evaluate(() => document.querySelectorAll('li.actor').length);
    const answerMs = performance.now() - e0;
    // Let the last summary arrive and render.
    await page.waitForTimeout(1_500);
    const burstLongest = await longest();
    if (profiler !== undefined && process.env.PROFILE !== undefined) {
      const { profile } = await profiler.send('Profiler.stop');
      const file = join(process.env.PROFILE, `inspector-${n}.cpuprofile`);
      await writeFile(file, JSON.stringify(profile));
      console.log(`page profile of the burst: ${file}`);
    }
    if (counts !== undefined) console.log(JSON.stringify(counts.map((c) => c())));
    console.log(
      `burst of ${Math.round(((n / 3600) * stepMs) / 100)} deliveries (${ms(burstMs)} on the Host): longest main-thread task ${ms(burstLongest)}; an evaluate answered in ${ms(answerMs)} (${items} actors listed)`,
    );
  } finally {
    await browser.close();
    await host.close();
    await rm(dir, { recursive: true, force: true });
  }
}

for (const n of sizes.length > 0 ? sizes : [10_000, 100_000]) await measure(n);

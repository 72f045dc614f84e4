// A console over a schedule service on memory storage, fake Sessions and a manual clock
// (2030-01-07T08:00Z), with one task in Session `s1` and an inspector; and the calls every mount
// is driven through: the catalog, a pause, the tools, the page and its files.
import { createScheduleInspector, createScheduleService, memoryStorage, type ScheduleService, type ScheduleView } from '../../src/index.ts';
import { createFakeSessions, createManualClock, type ManualClock } from '../../src/testing.ts';

export const START = '2030-01-07T08:00:00.000Z';

export interface ServiceRig {
  readonly service: ScheduleService;
  readonly inspector: ReturnType<typeof createScheduleInspector>;
  readonly clock: ManualClock;
  /** The task created in Session `s1`. */
  readonly task: ScheduleView;
  close(): Promise<void>;
}

export async function serviceRig(): Promise<ServiceRig> {
  const clock = createManualClock(START);
  const inspector = createScheduleInspector({ now: () => clock.now() });
  const service = await createScheduleService({
    sessions: createFakeSessions(),
    storage: memoryStorage(),
    clock,
    inspect: inspector.inspect,
    logger: { warn: () => undefined, error: () => undefined },
  });
  clock.attach(service);
  const task = await service.callTool('s1', 'schedule_create', { title: 'Tea', prompt: 'Make tea', after_seconds: 600 });
  if ('code' in task) throw new Error(task.message);
  return {
    service,
    inspector,
    clock,
    task: task as ScheduleView,
    async close() {
      await service.close();
      inspector.detach();
    },
  };
}

/** What one mount answered to the usual calls, for the assertions every mount shares. */
export interface DrivenCalls {
  readonly catalog: { status: number; ids: string[] };
  readonly pause: { status: number; state: unknown };
  readonly tools: { status: number; names: string[] };
  readonly page: { status: number; type: string | null; html: string };
  readonly asset: { status: number; type: string | null };
  readonly vendor: { status: number; type: string | null };
}

/** Drives the calls against `root` (the console's root URL, with its trailing slash). */
export async function drive(root: string, task: ScheduleView): Promise<DrivenCalls> {
  const at = (path: string) => new URL(path, root).href;
  const catalog = await fetch(at('api/catalog'));
  const catalogBody = (await catalog.json()) as Array<{ record: { id: string } }>;
  const pause = await fetch(at(`api/sessions/s1/tasks/${task.id}/pause`), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ note: 'on holiday' }),
  });
  const pauseBody = (await pause.json()) as { status?: unknown; state?: unknown };
  const tools = await fetch(at('api/tools'));
  const toolsBody = (await tools.json()) as Array<{ name: string }>;
  const page = await fetch(root);
  const asset = await fetch(at('static/app.js'));
  await asset.arrayBuffer();
  const vendor = await fetch(at('vendor/preact.mjs'));
  await vendor.arrayBuffer();
  return {
    catalog: { status: catalog.status, ids: catalogBody.map((entry) => entry.record.id) },
    pause: { status: pause.status, state: pauseBody.state ?? pauseBody.status },
    tools: { status: tools.status, names: toolsBody.map((tool) => tool.name) },
    page: { status: page.status, type: page.headers.get('content-type'), html: await page.text() },
    asset: { status: asset.status, type: asset.headers.get('content-type') },
    vendor: { status: vendor.status, type: vendor.headers.get('content-type') },
  };
}

/** The answers every mount must give. */
export function expectServed(calls: DrivenCalls, task: ScheduleView): void {
  expect(calls.catalog).toEqual({ status: 200, ids: [task.id] });
  expect(calls.pause.status).toBe(200);
  expect(calls.tools.status).toBe(200);
  expect(calls.tools.names).toContain('schedule_create');
  expect(calls.page.status).toBe(200);
  expect(calls.page.type).toMatch(/^text\/html/);
  expect(calls.page.html).toContain('<script type="module" src="static/app.js"></script>');
  expect(calls.asset).toEqual({ status: 200, type: 'text/javascript; charset=utf-8' });
  expect(calls.vendor).toEqual({ status: 200, type: 'text/javascript; charset=utf-8' });
}

// The reference Host's operations routes (docs/operations.md): `GET /metrics` in the Prometheus
// text format with every agent_schedule_ family and the process metrics, their values after one
// delivery and one failed attempt; `GET /healthz` and `GET /readyz`, which answer whatever the
// `Host` header (an orchestrator probes the address it dialled), readiness turning 503 once the
// storage is closed, and on a cluster while no shard or no live lease is held.
import { readiness } from '../../src/console/probeRoutes.ts';
import { type MetricsRig, metricsRig } from './metricsRig.ts';
import { startTestHost, type TestHost } from './support.ts';

let rig: MetricsRig | undefined;
let host: TestHost | undefined;
afterEach(async () => {
  await rig?.close();
  await host?.close();
  rig = undefined;
  host = undefined;
});

/** The sample lines of an exposition, by series (`name{labels}`), as numbers. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

const FAMILIES = {
  agent_schedule_tasks: 'gauge',
  agent_schedule_deliveries_total: 'counter',
  agent_schedule_delivery_lateness_seconds: 'histogram',
  agent_schedule_failed_attempts_total: 'counter',
  agent_schedule_storage_commit_seconds: 'histogram',
  agent_schedule_mailbox_depth: 'gauge',
  agent_schedule_open_sessions: 'gauge',
  agent_schedule_shards_held: 'gauge',
};

describe('GET /metrics', () => {
  it('after one delivery and one failed attempt: every family with HELP and TYPE, and their values', async () => {
    rig = await metricsRig();
    await rig.deliverAndFail();
    const response = await rig.get('/metrics');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await response.text();
    for (const [name, type] of Object.entries(FAMILIES)) {
      expect(text).toMatch(new RegExp(`^# HELP ${name} \\S.+$`, 'm'));
      expect(text).toContain(`# TYPE ${name} ${type}\n`);
    }
    const values = samples(text);
    expect(Object.fromEntries([...values].filter(([series]) => series.startsWith('agent_schedule_tasks')))).toEqual({
      'agent_schedule_tasks{state="scheduled"}': 0,
      'agent_schedule_tasks{state="overdue"}': 1,
      'agent_schedule_tasks{state="paused"}': 0,
      'agent_schedule_tasks{state="failing"}': 1,
      'agent_schedule_tasks{state="ended"}': 1,
    });
    expect(values.get('agent_schedule_deliveries_total{outcome="delivered"}')).toBe(1);
    expect(values.get('agent_schedule_deliveries_total{outcome="failed"}')).toBe(1);
    expect(values.get('agent_schedule_failed_attempts_total{stage="resolve"}')).toBe(1);
    expect(values.get('agent_schedule_failed_attempts_total{stage="flush"}')).toBe(0);
    // Delivered on the manual clock's tick, at its target.
    expect(values.get('agent_schedule_delivery_lateness_seconds_count')).toBe(1);
    expect(values.get('agent_schedule_delivery_lateness_seconds_bucket{le="0.05"}')).toBe(1);
    // Two creates and one delivery receipt were written (and the failed task's failure status, where it is stored).
    expect(values.get('agent_schedule_storage_commit_seconds_count{outcome="ok"}')).toBeGreaterThanOrEqual(3);
    expect(values.get('agent_schedule_storage_commit_seconds_count{outcome="failed"}')).toBe(0);
    expect(values.get('agent_schedule_mailbox_depth')).toBe(0);
    // Session broken still has its (failing) task; demo has none left.
    expect(values.get('agent_schedule_open_sessions')).toBe(1);
    expect(values.get('agent_schedule_shards_held')).toBe(0);
    expect(values.get('process_cpu_seconds_total')).toBeGreaterThanOrEqual(0);
    expect(values.get('nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
  });

  it('refuses a Host header this Host does not answer to', async () => {
    rig = await metricsRig();
    const response = await rig.get('/metrics', 'attacker.example:4319');
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ code: 'host_not_allowed' });
  });
});

describe('GET /healthz and /readyz', () => {
  it('a running Host answers both over HTTP, as curl http://127.0.0.1:PORT/healthz does', async () => {
    host = await startTestHost();
    expect(await host.get('/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
    expect(await host.get('/readyz')).toEqual({ status: 200, body: { status: 'ready' } });
  });

  it('answer whatever the Host header; /readyz is 503 storage_closed once the service is closed', async () => {
    rig = await metricsRig();
    const probe = async (path: string) => {
      const response = await rig?.get(path, '10.1.2.3:4319');
      return { status: response?.status, body: await response?.json() };
    };
    expect(await probe('/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
    expect(await probe('/readyz')).toEqual({ status: 200, body: { status: 'ready' } });
    await rig.stack.service.close();
    expect(await probe('/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
    expect(await probe('/readyz')).toEqual({
      status: 503,
      body: { status: 'not_ready', reason: 'storage_closed', message: 'The schedule storage is not open.' },
    });
  });

  it('a cluster replica is ready only with shards held and every lease live', () => {
    expect(readiness({ open: true, shards: { held: 0, live: 0 } })).toMatchObject({ status: 'not_ready', reason: 'no_shards' });
    expect(readiness({ open: true, shards: { held: 128, live: 127 } })).toMatchObject({
      status: 'not_ready',
      reason: 'lease_expired',
      message: expect.stringContaining('1 of the 128 shard leases'),
    });
    expect(readiness({ open: false, shards: { held: 128, live: 128 } })).toMatchObject({ reason: 'storage_closed' });
    expect(readiness({ open: true, shards: { held: 128, live: 128 } })).toEqual({ status: 'ready', shards: { held: 128, live: 128 } });
  });
});

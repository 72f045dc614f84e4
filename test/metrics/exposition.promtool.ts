// `promtool check metrics` on the reference Host's `GET /metrics`, after a delivery and a failed
// attempt, so every family has samples: the text parses and Prometheus's linter finds nothing
// (counter names ending in _total, base units, HELP on every family). Run by `npm run test:metrics`.
import { spawn } from 'node:child_process';
import { type MetricsRig, metricsRig } from '../host/metricsRig.ts';

/** Runs `promtool check metrics` with `text` on stdin. */
function promtoolCheck(text: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('promtool', ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('error', (error) => reject(new Error(`promtool could not be run (install Debian's prometheus package): ${error.message}`)));
    child.on('close', (code) => resolve({ code, output }));
    child.stdin.end(text);
  });
}

let rig: MetricsRig | undefined;
afterEach(async () => {
  await rig?.close();
});

describe('promtool check metrics', () => {
  it('the exposition after a delivery and a failed attempt has no problem', async () => {
    rig = await metricsRig();
    await rig.deliverAndFail();
    const response = await rig.get('/metrics');
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('agent_schedule_deliveries_total{outcome="failed"} 1');
    expect(await promtoolCheck(text)).toEqual({ code: 0, output: '' });
  });
});

// The console's server-side libraries are optional peer dependencies: without hono, importing
// `agent-schedule/console` fails naming the package to install; without prom-client, the console
// loads and only `createConsoleMetrics` fails so. Each runs in a Node process whose module
// resolution reports the package missing (fixtures/withoutPackage.mjs).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const hide = fileURLToPath(new URL('./fixtures/withoutPackage.mjs', import.meta.url));

/** Runs `script` (an ES module) with `hidden` unresolvable; answers its exit status and output. */
function runWithout(hidden: string, script: string) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--import', hide, '--input-type=module', '-e', script], {
    cwd: root,
    env: { ...process.env, HIDE_PACKAGE: hidden },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('the optional peer dependencies', () => {
  it('without hono, importing the console fails naming the package to install', () => {
    const run = runWithout('hono', "await import('./src/console/index.ts');");
    expect(run.status).not.toBe(0);
    expect(run.output).toContain('agent-schedule/console needs the package hono');
    expect(run.output).toContain('npm install hono');
  });

  it('without prom-client, the console loads and only createConsoleMetrics fails naming it', () => {
    const run = runWithout(
      'prom-client',
      [
        "const { createConsole, createConsoleMetrics } = await import('./src/console/index.ts');",
        "console.log('loaded', typeof createConsole);",
        'await createConsoleMetrics();',
      ].join('\n'),
    );
    expect(run.output).toContain('loaded function');
    expect(run.output).toContain('npm install prom-client');
    expect(run.status).not.toBe(0);
  });
});

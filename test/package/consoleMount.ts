// The console as a Host without the repository mounts it, as `npm run test:package` checks it: a
// fresh project installs the tarball with the console's and the MCP server's optional peers, and
// a plain Node program of a few lines (no tsx, no reference Host) serves `agent-schedule/console`
// over a service on memory storage. Against it, the installed `agent-schedule` command creates,
// lists, explains, pauses and pages the catalog, and the MCP SDK's own client, through the
// installed `agent-schedule mcp --url`, lists the tools and calls one.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { type Check, npm, output } from './shell.ts';

/** The optional peers the two entries need, at the versions this project pins. */
const PEERS = ['hono', '@modelcontextprotocol/sdk', 'zod'];

/** The whole Host: a service and the console in Node's own server. */
const SERVER = `import { createServer } from 'node:http';
import { createScheduleService, memoryStorage } from 'agent-schedule';
import { createConsole, nodeListener } from 'agent-schedule/console';
import { createFakeSessions } from 'agent-schedule/testing';

const service = await createScheduleService({ sessions: createFakeSessions(), storage: memoryStorage() });
const schedule = createConsole({ service });
const server = createServer(nodeListener(schedule.fetch));
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: \`http://127.0.0.1:\${server.address().port}\` })));
process.once('SIGTERM', () => {
  schedule.close();
  server.close();
  server.closeAllConnections();
  service.close().then(() => process.exit(0));
});
`;

/** The MCP SDK's client, speaking to `agent-schedule mcp --url <url> --session demo` over stdio. */
const MCP_CLIENT = `import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const bin = new URL('./node_modules/agent-schedule/dist/src/cli/bin.js', import.meta.url).pathname;
const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', '--url', process.argv[2], '--session', 'demo'] });
const client = new Client({ name: 'package-test', version: '1.0.0' });
await client.connect(transport);
const { tools } = await client.listTools();
const listed = await client.callTool({ name: 'schedule_list', arguments: {} });
await client.close();
console.log(JSON.stringify({ tools: tools.map((t) => t.name), listed: listed.content.map((c) => c.text).join('') }));
`;

const execFileAsync = promisify(execFile);

interface Ran {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the installed `agent-schedule` (its bin file, with this Node) in `dir`. */
async function cli(dir: string, args: readonly string[]): Promise<Ran> {
  const bin = join(dir, 'node_modules', 'agent-schedule', 'dist', 'src', 'cli', 'bin.js');
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [bin, ...args], { cwd: dir, timeout: 60_000 });
    return { status: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: unknown; stdout?: string; stderr?: string };
    return { status: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? String(error) };
  }
}

/** Starts the server program; resolves to its URL once it listens. */
function startServer(dir: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['server.mjs'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the server exited with ${code} before it listened\n${stderr}`)));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', (line) => {
      resolve({ url: (JSON.parse(line) as { url: string }).url, child });
    });
  });
}

const stop = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

/** Installs the tarball with the peers into `dir`, mounts the console there and drives the CLI and MCP against it. */
export async function consoleMount(dir: string, tarball: string, versions: Readonly<Record<string, string>>, check: Check): Promise<void> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'console-host', private: true, type: 'module' }, null, 2)}\n`);
  const peers = PEERS.map((name) => `${name}@${versions[name] ?? 'latest'}`);
  const install = npm(['install', '--no-audit', '--no-fund', '--prefer-offline', '--save-exact', tarball, ...peers], dir);
  if (!check(`npm install <tarball> ${peers.join(' ')} into a fresh project (console-host)`, install.status === 0, output(install))) return;
  writeFileSync(join(dir, 'server.mjs'), SERVER);
  writeFileSync(join(dir, 'mcpClient.mjs'), MCP_CLIENT);

  const { url, child } = await startServer(dir);
  try {
    const page = await fetch(`${url}/`);
    const html = await page.text();
    check('the mounted console serves the task page from the package', page.status === 200 && html.includes('<html'), html.slice(0, 300));

    const created = await cli(dir, [
      '--url',
      url,
      'create',
      '--session',
      'demo',
      '--title',
      'Tea',
      '--prompt',
      'Tea time',
      '--after',
      '3600',
      '--json',
    ]);
    const id = created.status === 0 ? (JSON.parse(created.stdout) as { id?: string }).id : undefined;
    if (!check('the installed agent-schedule create answers through the console', typeof id === 'string', JSON.stringify(created))) return;
    const task = id as string;

    const list = await cli(dir, ['list', '--session', 'demo', '--url', url]);
    check(
      'agent-schedule list shows the task',
      list.status === 0 && list.stdout.includes(task) && list.stdout.includes('Tea'),
      JSON.stringify(list),
    );

    const explain = await cli(dir, ['explain', '--id', task, '--url', url]);
    check(
      'agent-schedule explain names the task and its Session',
      explain.status === 0 && explain.stdout.includes('demo'),
      JSON.stringify(explain),
    );

    const pause = await cli(dir, ['pause', '--session', 'demo', '--id', task, '--note', 'away', '--url', url, '--json']);
    check('agent-schedule pause --note pauses it', pause.status === 0 && pause.stdout.includes('away'), JSON.stringify(pause));

    const catalog = await cli(dir, ['--url', url, '--json', 'catalog', '--state', 'paused']);
    let paused: unknown;
    try {
      paused = (JSON.parse(catalog.stdout) as { entries: Array<{ record: { id: string }; pauseNote?: string }> }).entries.map(
        (e) => `${e.record.id}:${e.pauseNote}`,
      );
    } catch {
      paused = undefined;
    }
    check(
      'agent-schedule catalog --state paused --json pages the console catalog',
      JSON.stringify(paused) === JSON.stringify([`${task}:away`]),
      JSON.stringify(catalog),
    );

    const mcp = await execFileAsync(process.execPath, ['mcpClient.mjs', url], { cwd: dir, timeout: 60_000 }).then(
      ({ stdout }) => stdout,
      (error: unknown) => String(error),
    );
    let answer: { tools?: string[]; listed?: string } = {};
    try {
      answer = JSON.parse(mcp) as typeof answer;
    } catch {
      answer = {};
    }
    check(
      'the MCP SDK client, through agent-schedule mcp --url, lists the four tools and sees the task',
      answer.tools?.length === 4 && answer.listed?.includes(task) === true,
      mcp,
    );
  } finally {
    await stop(child);
  }
}

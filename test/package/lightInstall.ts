// The light install, as `npm run test:package` checks it: the tarball installed alone into an empty
// project brings only what the core imports — no optional peer (the MCP SDK, zod, hono,
// prom-client, pg), at most MAX_PACKAGES packages — and every entry but agent-schedule/mcp loads.
// Without the MCP SDK, `agent-schedule mcp` fails with `missing_dependency` and the install line
// (no stack trace, nothing written to its data folder), while `agent-schedule tools` and `--help`
// work; without temporal-polyfill a listed zone still works and an alias fails naming the module.
// Prints the package count and size.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Check, npm, npx, output, run } from './shell.ts';

/** The most packages (agent-schedule included) an install of the package alone may bring. */
export const MAX_PACKAGES = 10;
/** Optional peers of the package's entries: never installed by the package itself. */
const OPTIONAL_PEERS = ['@modelcontextprotocol/sdk', 'zod', 'hono', 'prom-client', 'pg'];
const MCP_INSTALL = 'npm install @modelcontextprotocol/sdk zod';

/** Bytes of every file under `dir`. */
function bytesUnder(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce((sum, entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sum + bytesUnder(path);
    return entry.isFile() ? sum + statSync(path).size : sum;
  }, 0);
}

/** The installed packages by name, from npm's record of node_modules (nested copies included). */
function installedPackages(modules: string): string[] {
  const lock = JSON.parse(readFileSync(join(modules, '.package-lock.json'), 'utf8')) as { packages: Record<string, unknown> };
  return Object.keys(lock.packages)
    .filter((key) => key.startsWith('node_modules/'))
    .map((key) => key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length));
}

/** Installs `tarball` alone into a fresh project in `dir` and checks what it brings and what works without the optional peers. */
export function lightInstall(dir: string, tarball: string, check: Check): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'light', private: true, type: 'module' }, null, 2)}\n`);
  const install = npm(['install', '--no-audit', '--no-fund', '--prefer-offline', '--save-exact', tarball], dir);
  if (!check('npm install <tarball> alone into an empty project', install.status === 0, output(install))) return;

  const modules = join(dir, 'node_modules');
  const packages = installedPackages(modules);
  const megabytes = bytesUnder(modules) / (1024 * 1024);
  console.log(`     light install: ${packages.length} packages, ${megabytes.toFixed(1)} MiB of files (${packages.join(', ')})`);
  const peers = packages.filter((name) => OPTIONAL_PEERS.includes(name));
  check(`the install brings no optional peer (${OPTIONAL_PEERS.join(', ')})`, peers.length === 0, peers.join('\n'));
  check(`the install brings at most ${MAX_PACKAGES} packages (${packages.length})`, packages.length <= MAX_PACKAGES, packages.join('\n'));

  writeFileSync(
    join(dir, 'entries.mjs'),
    [
      "const loaded = await Promise.all(['agent-schedule', 'agent-schedule/testing', 'agent-schedule/machines', 'agent-schedule/postgres'].map((e) => import(e)));",
      'console.log(loaded.map((m) => Object.keys(m).length > 0).join(" "));',
      "const mcp = await import('agent-schedule/mcp').then(() => 'loaded', (e) => [e.code, e.message].join(': '));",
      'console.log(mcp);',
    ].join('\n'),
  );
  const entries = run(process.execPath, ['entries.mjs'], dir);
  const [loaded, mcpEntry = ''] = entries.stdout.split('\n');
  check(
    'without the optional peers, agent-schedule, /testing, /machines and /postgres import',
    entries.status === 0 && loaded === 'true true true true',
    output(entries),
  );
  check(
    "agent-schedule/mcp without the MCP SDK fails to import, naming '@modelcontextprotocol/sdk'",
    mcpEntry.startsWith("ERR_MODULE_NOT_FOUND: Cannot find package '@modelcontextprotocol/sdk'"),
    output(entries),
  );

  const data = mkdtempSync(join(dir, 'data-'));
  const mcp = npx(['agent-schedule', 'mcp', '--session', 'demo', '--data', data], dir);
  check(
    `without the MCP SDK, npx agent-schedule mcp --data exits 1 with missing_dependency and "${MCP_INSTALL}"`,
    mcp.status === 1 &&
      mcp.stdout === '' &&
      /^missing_dependency: agent-schedule mcp needs .*\n$/.test(mcp.stderr) &&
      mcp.stderr.includes(MCP_INSTALL) &&
      readdirSync(data).length === 0,
    `${output(mcp)}\ndata folder: ${readdirSync(data).join(', ')}`,
  );
  rmSync(data, { recursive: true, force: true });
  const help = npx(['agent-schedule', '--help'], dir);
  check(
    'without the MCP SDK, npx agent-schedule --help lists every command',
    help.status === 0 && /^ {2}mcp /m.test(help.stdout),
    output(help),
  );

  const tools = npx(['agent-schedule', 'tools', '--json'], dir);
  let names: unknown;
  try {
    names = (JSON.parse(tools.stdout) as Array<{ name: string }>).map((t) => t.name);
  } catch {
    names = undefined;
  }
  check(
    'npx agent-schedule tools --json prints the four definitions with no Host running',
    tools.status === 0 &&
      JSON.stringify(names) === JSON.stringify(['schedule_create', 'schedule_list', 'schedule_update', 'schedule_delete']),
    output(tools),
  );

  // temporal-polyfill is loaded only for a zone alias: a listed zone needs none, and an install
  // that lost it fails that alias naming the module, never answering invalid_time_zone.
  rmSync(join(dir, 'node_modules', 'temporal-polyfill'), { recursive: true, force: true });
  const preview = (zone: string) =>
    npx(['agent-schedule', 'preview', '--daily', '09:00', '--tz', zone, '--from', '2030-01-04T00:00:00Z', '--count', '1'], dir);
  const listed = preview('Asia/Shanghai');
  check(
    'without temporal-polyfill, npx agent-schedule preview --tz Asia/Shanghai (a listed zone) still prints its target',
    listed.status === 0 && listed.stdout.includes('2030-01-04T01:00:00.000Z'),
    output(listed),
  );
  const alias = preview('asia/kolkata');
  check(
    'without temporal-polyfill, an alias (asia/kolkata) fails naming the missing module, not invalid_time_zone',
    alias.status !== 0 &&
      `${alias.stdout}${alias.stderr}`.includes("'temporal-polyfill'") &&
      !`${alias.stdout}${alias.stderr}`.includes('invalid_time_zone'),
    output(alias),
  );
}

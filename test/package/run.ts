// `npm run test:package`: the package as a Host installs it. Packs the project with `npm pack`
// (which builds it), checks the tarball's file list, installs the tarball into fresh projects in a
// temporary folder and uses it there:
//   1. a project with no TypeScript, no tsx and no dev tooling runs examples/quickstart.mjs with
//      plain `node` (memory storage, the testing helpers, a reminder delivered on a manual clock)
//      and gets the exact reminder text;
//   2. the installed `agent-schedule` command (`npx agent-schedule preview …`) prints the right
//      targets;
//   3. a project with only `typescript` and `@types/node` (the versions this project pins)
//      type-checks examples/embed.ts and examples/typed-results.ts with strict consumer settings
//      and `skipLibCheck: false`, under `nodenext` and under `bundler` resolution, then compiles
//      and runs typed-results; and type-checks consumers of `agent-schedule/machines` (with
//      examples/xstateHost.ts) and `agent-schedule/postgres` under both resolutions.
//   4. agent-schedule/postgres loads without its optional peer pg (a connection string is then
//      refused with a clear error) and type-checks without pg's types.
//   5. the tarball alone in an empty project is a light install (lightInstall.ts);
//   6. a plain Node program mounts agent-schedule/console, and the installed CLI and the MCP SDK's
//      client (through `agent-schedule mcp --url`) work against it (consoleMount.ts).
// Prints the tarball's size and file count; exits non-zero on any failure. The installs use the
// npm cache first (`--prefer-offline`). KEEP_PACKAGE_TEST=1 keeps the temporary folder.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { consoleMount } from './consoleMount.ts';
import { REMINDER_TEXT, TYPED_RESULTS_OUTPUT } from './expected.ts';
import { lightInstall } from './lightInstall.ts';
import { npm, npx, output, type Result, run } from './shell.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** The files a tarball may hold besides dist/ and docs/ (the pages the README links to). */
const TOP_LEVEL_FILES = ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md'];
const SHIPPED_FOLDERS = ['dist/', 'docs/'];
/** Paths that must never be shipped: tests, benchmarks, CI, the reference Host, sources. */
const FORBIDDEN =
  /(^|\/)(test|tests|bench|\.ci|host|examples|scripts|visualizations|node_modules|data)(\/|$)|\.(test|bench)\.|(?<!\.d)\.ts$/;
/**
 * The entries (package.json `exports` and `bin`) whose code may import each optional peer: a file
 * of dist/ that imports it may be loaded, through the relative imports of the bundle's entries
 * and chunks, from these entries only. The command line reaches pg for `migrate` and the MCP SDK
 * for `mcp`.
 */
const OPTIONAL_PEER_HOMES: Readonly<Record<string, readonly string[]>> = {
  pg: ['dist/src/entries/postgres.js', 'dist/src/cli/bin.js'],
  '@modelcontextprotocol/sdk': ['dist/src/mcp/index.js', 'dist/src/cli/bin.js'],
  hono: ['dist/src/console/index.js'],
  'prom-client': ['dist/src/console/index.js'],
};
/** Optional peers no shipped file imports: what an optional peer needs beside it (zod for the MCP SDK). */
const PEERS_OF_PEERS = ['zod'];
/** Dev tooling that must not reach a plain consumer's node_modules. */
const DEV_TOOLING = ['typescript', 'tsx', 'vitest', 'vite', 'esbuild', '@biomejs/biome', 'fast-check', '@types/node'];

/** Strict consumer settings the declarations must compile under. */
const STRICT = {
  target: 'es2022',
  lib: ['es2022'],
  types: ['node'],
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  noPropertyAccessFromIndexSignature: true,
  skipLibCheck: false,
  noEmit: true,
};

const failures: string[] = [];

function check(name: string, ok: boolean, detail = ''): boolean {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${!ok && detail !== '' ? `\n${indent(detail)}` : ''}`);
  if (!ok) failures.push(name);
  return ok;
}

/** Runs one stage; an exception fails the stage (as a check) instead of ending the run. */
function attempt(name: string, stage: () => void): void {
  try {
    stage();
  } catch (error) {
    check(name, false, error instanceof Error ? (error.stack ?? error.message) : String(error));
  }
}

const indent = (text: string): string =>
  text
    .trimEnd()
    .split('\n')
    .slice(0, 60)
    .map((line) => `       ${line}`)
    .join('\n');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

/** A fresh `"type": "module"` project with `packages` installed from the registry cache. */
function project(dir: string, packages: readonly string[]): boolean {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'consumer', private: true, type: 'module' }, null, 2)}\n`);
  const r = npm(['install', '--no-audit', '--no-fund', '--prefer-offline', '--save-exact', ...packages], dir);
  return check(
    `npm install ${packages.map((p) => (p.endsWith('.tgz') ? basename(p) : p)).join(' ')} into a fresh project (${basename(dir)})`,
    r.status === 0,
    output(r),
  );
}

interface PackEntry {
  readonly filename: string;
  readonly size: number;
  readonly unpackedSize: number;
  readonly entryCount: number;
  readonly files: ReadonlyArray<{ readonly path: string }>;
}

function pack(dest: string): PackEntry | undefined {
  const r = npm(['pack', '--json', '--pack-destination', dest], root);
  // `prepack` (the build) prints before npm's JSON answer.
  const json = r.stdout.slice(r.stdout.search(/^\[/m));
  if (!check('npm pack (builds through prepack)', r.status === 0 && json.startsWith('['), output(r))) return undefined;
  const [entry] = JSON.parse(json) as PackEntry[];
  return entry;
}

function checkFileList(entry: PackEntry): void {
  const paths = entry.files.map((f) => f.path);
  const stray = paths.filter((p) => !SHIPPED_FOLDERS.some((folder) => p.startsWith(folder)) && !TOP_LEVEL_FILES.includes(p));
  check('the tarball holds dist/, docs/, package.json, README.md, LICENSE and CHANGELOG.md only', stray.length === 0, stray.join('\n'));
  const forbidden = paths.filter((p) => FORBIDDEN.test(p) || p.endsWith('.map'));
  check('the tarball holds no test, bench, CI, Host, source or source-map file', forbidden.length === 0, forbidden.join('\n'));
  const required = [
    ...TOP_LEVEL_FILES,
    'dist/src/index.js',
    'dist/src/index.d.ts',
    'dist/src/testing.js',
    'dist/src/testing.d.ts',
    'dist/src/entries/machines.js',
    'dist/src/entries/machines.d.ts',
    'dist/src/entries/postgres.js',
    'dist/src/entries/postgres.d.ts',
    'dist/src/mcp/index.js',
    'dist/src/mcp/index.d.ts',
    'dist/src/console/index.js',
    'dist/src/console/index.d.ts',
    'dist/src/console/static/index.html',
    'dist/src/cli/bin.js',
    'docs/README.md',
    'docs/api.md',
  ];
  const missing = required.filter((p) => !paths.includes(p));
  check('the tarball holds every entry point and its declarations, and the page', missing.length === 0, missing.join('\n'));
  const kinds = { '.js': 0, '.d.ts': 0 };
  for (const p of paths) {
    if (p.endsWith('.d.ts')) kinds['.d.ts']++;
    else if (p.endsWith('.js')) kinds['.js']++;
  }
  console.log(
    `     tarball ${entry.filename}: ${(entry.size / 1024).toFixed(1)} KiB packed, ${(entry.unpackedSize / 1024).toFixed(1)} KiB unpacked, ` +
      `${entry.entryCount} files (${kinds['.js']} .js, ${kinds['.d.ts']} .d.ts; outside dist/: ${paths.filter((p) => !p.startsWith('dist/')).join(', ')})`,
  );
}

/**
 * Every module specifier a shipped file imports: `from '…'`, `import '…'`, `import('…')` and
 * `require('…')` (a module loaded on first use through `createRequire`, which the bundler names
 * `require2` and the like).
 */
const specifiersOf = (file: string): string[] =>
  [...readFileSync(file, 'utf8').matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\d*\s*\(\s*)(['"])([^'"\s]+)\1/g)].map(
    (m) => m[2] ?? '',
  );

/**
 * For each shipped file, the entries (package-relative paths named by `exports` and `bin`) that
 * load it: through the relative imports, static and dynamic, of the bundle's entries and chunks.
 */
function entriesReaching(installed: string, specifiers: ReadonlyMap<string, readonly string[]>): Map<string, string[]> {
  const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { import?: string }>;
    bin: Record<string, string>;
  };
  const targets = [
    ...Object.values(manifest.exports).map((t) => (typeof t === 'string' ? t : (t.import ?? ''))),
    ...Object.values(manifest.bin),
  ].filter((t) => t.endsWith('.js'));
  const relativeImports = (file: string): string[] =>
    (specifiers.get(file) ?? []).filter((spec) => /^\.\.?\//.test(spec)).map((spec) => join(dirname(file), spec));
  const reached = new Map<string, string[]>();
  for (const target of new Set(targets)) {
    const entry = join(installed, target);
    const name = relative(installed, entry);
    const seen = new Set([entry]);
    for (const file of seen) for (const next of relativeImports(file)) seen.add(next);
    for (const file of seen) reached.set(file, [...(reached.get(file) ?? []), name]);
  }
  return reached;
}

/** Bare specifiers the shipped JavaScript imports must be Node built-ins or declared dependencies, and every dependency is used. */
function checkImports(installed: string): void {
  const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
    peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  };
  const dependencies = Object.keys(manifest.dependencies ?? {});
  // Optional peers may be imported only by the entry points that need them (OPTIONAL_PEER_HOMES).
  const optionalPeers = Object.keys(manifest.peerDependencies ?? {}).filter((p) => manifest.peerDependenciesMeta?.[p]?.optional === true);
  const peerImports: string[] = [];
  const builtins = new Set(builtinModules);
  const used = new Set<string>();
  const undeclared: string[] = [];
  // The page's own modules run in the browser, where its import map names the shipped vendor files.
  const browser = join(installed, 'dist', 'src', 'console', 'static');
  const nodeFiles = filesUnder(join(installed, 'dist')).filter((f) => f.endsWith('.js') && !f.startsWith(browser));
  const specifiers = new Map(nodeFiles.map((file) => [file, specifiersOf(file)]));
  const reachedFrom = entriesReaching(installed, specifiers);
  for (const [file, specs] of specifiers) {
    for (const spec of specs) {
      if (spec.startsWith('.') || spec.startsWith('node:') || builtins.has(spec)) continue;
      const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : (spec.split('/')[0] ?? spec);
      const homes = OPTIONAL_PEER_HOMES[name];
      const entries = reachedFrom.get(file) ?? [];
      if (dependencies.includes(name)) used.add(name);
      else if (optionalPeers.includes(name) && homes !== undefined && entries.every((e) => homes.includes(e)))
        peerImports.push(`${relative(installed, file)}: ${spec} (from ${entries.join(', ')})`);
      else undeclared.push(`${relative(installed, file)}: ${spec} (from ${entries.join(', ') || 'no entry'})`);
    }
  }
  check('the shipped JavaScript imports only Node built-ins and declared dependencies', undeclared.length === 0, undeclared.join('\n'));
  const homeless = optionalPeers.filter((peer) => !(peer in OPTIONAL_PEER_HOMES) && !PEERS_OF_PEERS.includes(peer));
  check(
    `the optional peers ${optionalPeers.join(', ')} are imported only by their own entries (${peerImports.join('; ')})`,
    homeless.length === 0 && peerImports.length > 0,
    `no home in OPTIONAL_PEER_HOMES: ${homeless.join(', ')}`,
  );
  // A dependency the code does not import itself may be a required peer of one it does (zod for the MCP SDK).
  const peersOf = (name: string): string[] => {
    const peer = JSON.parse(readFileSync(join(installed, '..', name, 'package.json'), 'utf8')) as {
      peerDependencies?: Record<string, string>;
      peerDependenciesMeta?: Record<string, { optional?: boolean }>;
    };
    return Object.keys(peer.peerDependencies ?? {}).filter((p) => peer.peerDependenciesMeta?.[p]?.optional !== true);
  };
  const peers = new Map([...used].flatMap((name) => peersOf(name).map((peer): [string, string] => [peer, name])));
  const unused = dependencies.filter((d) => !used.has(d) && !peers.has(d));
  const asPeers = dependencies.filter((d) => !used.has(d) && peers.has(d)).map((d) => `${d} as a peer of ${peers.get(d)}`);
  check(
    `every runtime dependency is used by the shipped code (${[...used].join(', ')}${asPeers.length > 0 ? `; ${asPeers.join(', ')}` : ''})`,
    unused.length === 0,
    `unused: ${unused.join(', ')}`,
  );
  for (const [name, version] of Object.entries(manifest.dependencies ?? {})) {
    check(`dependency ${name} is pinned exactly (${version})`, /^\d+\.\d+\.\d+$/.test(version));
  }
}

function runtimeProject(dir: string, tarball: string): void {
  if (!project(dir, [tarball])) return;
  const modules = join(dir, 'node_modules');
  const tooling = DEV_TOOLING.filter((name) => existsSync(join(modules, name)));
  check('the installed package brings no TypeScript, tsx or dev tooling', tooling.length === 0, tooling.join('\n'));
  const installed = join(modules, 'agent-schedule');
  attempt('the shipped imports can be read', () => checkImports(installed));

  check('the installed package brings no optional peer (pg)', !existsSync(join(modules, 'pg')));
  writeFileSync(
    join(dir, 'postgres.mjs'),
    [
      "import { postgresStorage, SCHEMA_VERSION } from 'agent-schedule/postgres';",
      "const refused = await postgresStorage({ connectionString: 'postgres://127.0.0.1:1/none' }).open().catch((e) => e);",
      "console.log(SCHEMA_VERSION, refused.code + ': ' + refused.message);",
    ].join('\n'),
  );
  const postgres = run(process.execPath, ['postgres.mjs'], dir);
  check(
    'without pg installed, agent-schedule/postgres loads and a connection string is refused with a clear error',
    postgres.status === 0 && postgres.stdout.includes('internal_error: A PostgreSQL connection string needs the `pg` package'),
    output(postgres),
  );

  copyFileSync(join(root, 'examples', 'quickstart.mjs'), join(dir, 'quickstart.mjs'));
  const quick = run(process.execPath, ['quickstart.mjs'], dir);
  check(
    'plain node runs examples/quickstart.mjs and the Session gets the exact reminder text',
    quick.stdout === `${REMINDER_TEXT}\n`,
    output(quick),
  );

  const binPath = join(installed, 'dist', 'src', 'cli', 'bin.js');
  const bin = existsSync(binPath) ? readFileSync(binPath, 'utf8') : '';
  check(
    'the installed bin is plain JavaScript run by node (#! line, no tsx)',
    bin.startsWith('#!/usr/bin/env node\n') && !/(from\s*|import\s*\(\s*)['"]tsx/.test(bin),
  );
  const daily = npx(
    [
      'agent-schedule',
      'preview',
      '--daily',
      '01:30:00',
      '--tz',
      'Europe/London',
      '--from',
      '2027-03-26T00:00:00Z',
      '--count',
      '3',
      '--json',
    ],
    dir,
  );
  let targets: unknown;
  try {
    targets = (JSON.parse(daily.stdout) as Array<{ at: string; notes: string[] }>).map((o) => [o.at, o.notes.length > 0]);
  } catch {
    targets = undefined;
  }
  check(
    'npx agent-schedule preview --daily 01:30:00 --tz Europe/London skips the DST gap of 2027-03-28',
    daily.status === 0 &&
      JSON.stringify(targets) ===
        JSON.stringify([
          ['2027-03-26T01:30:00.000Z', false],
          ['2027-03-27T01:30:00.000Z', false],
          ['2027-03-29T00:30:00.000Z', true],
        ]),
    output(daily),
  );
  const cron = npx(
    ['agent-schedule', 'preview', '--cron', '*/15 9-17 * * 1-5', '--tz', 'Asia/Shanghai', '--from', '2030-01-04T00:00:00Z', '--count', '3'],
    dir,
  );
  const rows = cron.stdout.split('\n').filter((line) => /^\d{4}-/.test(line));
  check(
    'npx agent-schedule preview --cron "*/15 9-17 * * 1-5" --tz Asia/Shanghai prints the next three targets',
    cron.status === 0 &&
      JSON.stringify(rows.map((line) => line.split(/\s+/).slice(0, 3))) ===
        JSON.stringify([
          ['2030-01-04T01:00:00.000Z', '2030-01-04T09:00:00', '+08:00'],
          ['2030-01-04T01:15:00.000Z', '2030-01-04T09:15:00', '+08:00'],
          ['2030-01-04T01:30:00.000Z', '2030-01-04T09:30:00', '+08:00'],
        ]),
    output(cron),
  );
  // An alias outside the runtime's list of zones: temporal-polyfill is loaded on first use.
  const alias = npx(
    ['agent-schedule', 'preview', '--daily', '09:00', '--tz', 'asia/kolkata', '--from', '2030-01-04T00:00:00Z', '--count', '1'],
    dir,
  );
  check(
    'npx agent-schedule preview --tz asia/kolkata (an alias, read with temporal-polyfill) names Asia/Kolkata and its offset',
    alias.status === 0 &&
      alias.stdout.includes('in Asia/Kolkata') &&
      /2030-01-04T03:30:00\.000Z\s+2030-01-04T09:00:00\s+\+05:30/.test(alias.stdout),
    output(alias),
  );
  const usage = npx(['agent-schedule', 'preview'], dir);
  check('npx agent-schedule with bad usage exits 2', usage.status === 2, output(usage));
}

function writeTsconfig(dir: string, name: string, options: Record<string, unknown>, files: readonly string[]): void {
  writeFileSync(join(dir, name), `${JSON.stringify({ compilerOptions: { ...STRICT, ...options }, files }, null, 2)}\n`);
}

function typesProject(dir: string, tarball: string): void {
  const pins = ['typescript', '@types/node'].map((name) => `${name}@${rootManifest.devDependencies[name]}`);
  if (!project(dir, [tarball, ...pins])) return;
  const tsc = (config: string, ...extra: string[]): Result =>
    run(process.execPath, [join(dir, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', config, ...extra], dir);
  for (const file of ['embed.ts', 'typed-results.ts']) copyFileSync(join(root, 'examples', file), join(dir, file));
  copyFileSync(join(root, 'test', 'package', 'consumer', 'machines.ts'), join(dir, 'machines.ts'));
  copyFileSync(join(root, 'examples', 'xstateHost.ts'), join(dir, 'xstateHost.ts'));
  const consumers = ['embed.ts', 'typed-results.ts'];
  writeTsconfig(dir, 'tsconfig.nodenext.json', { module: 'nodenext', moduleResolution: 'nodenext' }, consumers);
  writeTsconfig(dir, 'tsconfig.bundler.json', { module: 'esnext', moduleResolution: 'bundler' }, consumers);
  copyFileSync(join(root, 'test', 'package', 'consumer', 'postgres.ts'), join(dir, 'postgres.ts'));
  const resolutions = {
    nodenext: { module: 'nodenext', moduleResolution: 'nodenext' },
    bundler: { module: 'esnext', moduleResolution: 'bundler' },
  };
  for (const [name, options] of Object.entries(resolutions)) {
    writeTsconfig(dir, `tsconfig.machines.${name}.json`, options, ['machines.ts', 'xstateHost.ts']);
    writeTsconfig(dir, `tsconfig.postgres.${name}.json`, options, ['postgres.ts']);
  }
  const flags = 'strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess, noPropertyAccessFromIndexSignature, skipLibCheck false';

  const version = tsc('tsconfig.nodenext.json', '--version');
  console.log(`     consumer TypeScript: ${version.stdout.trim()}`);
  const nodenext = tsc('tsconfig.nodenext.json');
  check(
    `examples/embed.ts and typed-results.ts type-check against the package (nodenext; ${flags})`,
    nodenext.status === 0,
    output(nodenext),
  );
  const bundler = tsc('tsconfig.bundler.json');
  check(`examples/embed.ts and typed-results.ts type-check against the package (bundler; ${flags})`, bundler.status === 0, output(bundler));
  for (const name of Object.keys(resolutions)) {
    const postgres = tsc(`tsconfig.postgres.${name}.json`);
    check(
      `a consumer of agent-schedule/postgres type-checks without pg or @types/pg installed (${name}; ${flags})`,
      postgres.status === 0,
      output(postgres),
    );
  }

  const emitted = tsc('tsconfig.nodenext.json', '--noEmit', 'false', '--outDir', 'out');
  if (check('typed-results.ts compiles to JavaScript', emitted.status === 0, output(emitted))) {
    const typed = run(process.execPath, [join('out', 'typed-results.js')], dir);
    check(
      'the compiled typed-results.js runs and narrows every answer as typed',
      typed.stdout === `${TYPED_RESULTS_OUTPUT}\n`,
      output(typed),
    );
  }

  // XState's own declarations do not compile under exactOptionalPropertyTypes with skipLibCheck
  // false (TS2344 in xstate/dist/declarations/src/setup.d.ts); the main entry does not load them,
  // the machines entry must. Every diagnostic must lie inside XState, none in this package.
  for (const name of Object.keys(resolutions)) {
    const machines = tsc(`tsconfig.machines.${name}.json`);
    const diagnostics = machines.stdout.split('\n').filter((line) => /^\S.*\(\d+,\d+\): error TS\d+/.test(line));
    const ours = diagnostics.filter((line) => !line.startsWith('node_modules/xstate/'));
    check(
      `a consumer of agent-schedule/machines and examples/xstateHost.ts type-check (${name}; ${flags}): ${diagnostics.length - ours.length} diagnostics, all in XState's own declarations`,
      ours.length === 0 && (machines.status === 0 || diagnostics.length > 0),
      output(machines),
    );
  }
}

async function main(): Promise<number> {
  const work = mkdtempSync(join(tmpdir(), 'agent-schedule-package-'));
  console.log(`package test in ${work}`);
  try {
    const entry = pack(work);
    if (entry === undefined) return 1;
    checkFileList(entry);
    const tarball = join(work, entry.filename);
    attempt('the runtime project', () => runtimeProject(join(work, 'runtime'), tarball));
    attempt('the types project', () => typesProject(join(work, 'types'), tarball));
    attempt('the light install', () => lightInstall(join(work, 'light'), tarball, check));
    await consoleMount(join(work, 'console-host'), tarball, rootManifest.devDependencies, check).catch((error: unknown) =>
      check('the console mounted in plain Node', false, error instanceof Error ? (error.stack ?? error.message) : String(error)),
    );
  } finally {
    if (process.env.KEEP_PACKAGE_TEST === '1') console.log(`kept ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
  console.log(failures.length === 0 ? 'package test passed' : `package test FAILED: ${failures.length} check(s)`);
  return failures.length === 0 ? 0 : 1;
}

process.exitCode = await main();

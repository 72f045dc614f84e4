// `npm run build`: builds the shipped code (src/ and machines/, per tsconfig.build.json) into dist/
// and checks the result. TypeScript emits the .d.ts declarations, with their doc comments, one per
// source file; its `.ts` import specifiers are rewritten to `.js` so every declaration names a
// shipped file. The JavaScript is bundled by esbuild: one file per package entry (package.json
// `exports` and `bin`, at the same dist/ paths the declarations sit beside) and the modules two
// or more entries share in dist/chunks/, without comments, every dependency left to Node to
// resolve. One file per entry instead of one per source module: a Host's process loads the core
// and the PostgreSQL storage from a few dozen files rather than 130-odd, which was most of the
// module loading a restart paid (BENCHMARKS.md, restore). A module two entries share lives in one chunk, so `ScheduleError` and
// the actors' logic stay one class and one object whichever entries a Host imports. Every relative
// specifier is then checked to end in `.js` and to name an emitted file, and the CLI entry to
// start with its `#!` line and be executable. The console's web page is copied into
// `dist/src/console/static/`, with the three vendor modules its import map names and their
// licences (`dist/src/console/vendor/`), so an installed package serves the page without Preact
// or htm installed.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
/** The executable named by package.json `bin`. */
const CLI_ENTRY = join(dist, 'src', 'cli', 'bin.js');

/** The vendor modules the console's page loads: the served name, the package, its ESM file beside its entry, its licence. */
const VENDOR = [
  { name: 'preact.mjs', specifier: 'preact', file: 'preact.module.js', license: 'preact/LICENSE' },
  { name: 'preact-hooks.mjs', specifier: 'preact/hooks', file: 'hooks.module.js', license: 'preact/LICENSE' },
  { name: 'htm.mjs', specifier: 'htm', file: 'htm.module.js', license: 'htm/LICENSE' },
] as const;

/** Copies the console's page and vendor modules into dist. */
function copyConsoleAssets(): void {
  const require = createRequire(import.meta.url);
  const consoleDist = join(dist, 'src', 'console');
  cpSync(join(root, 'src', 'console', 'static'), join(consoleDist, 'static'), { recursive: true });
  const vendor = join(consoleDist, 'vendor');
  mkdirSync(vendor, { recursive: true });
  for (const { name, specifier, file, license } of VENDOR) {
    copyFileSync(join(dirname(require.resolve(specifier)), file), join(vendor, name));
    copyFileSync(join(root, 'node_modules', license), join(vendor, `${license.split('/')[0]}.LICENSE`));
  }
}

/** Relative module specifiers in emitted code: `from '…'`, `import '…'` and `import('…')`. */
const SPECIFIER = /(\bfrom\s*|\bimport\s*\(?\s*)(['"])(\.\.?\/[^'"]+)\2/g;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

/** The declaration file a `.js` specifier of a declaration stands for. */
const declarationOf = (jsPath: string): string => jsPath.replace(/\.js$/, '.d.ts');

/** The source file of each shipped entry: `./dist/<path>.js` in package.json is built from `<path>.ts`. */
function entrySources(): string[] {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { import?: string }>;
    bin: Record<string, string>;
  };
  const built = [
    ...Object.values(manifest.exports).flatMap((target) => (typeof target === 'string' ? [] : [target.import ?? ''])),
    ...Object.values(manifest.bin),
  ].filter((path) => path.startsWith('./dist/') && path.endsWith('.js'));
  return [...new Set(built)].map((path) => join(root, `${path.slice('./dist/'.length, -'.js'.length)}.ts`));
}

/** Bundles every entry into dist/ at its own path, the modules entries share into dist/chunks/. */
async function bundleEntries(): Promise<void> {
  await build({
    entryPoints: entrySources(),
    absWorkingDir: root,
    outbase: root,
    outdir: dist,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    chunkNames: 'chunks/[name]-[hash]',
    legalComments: 'none',
    charset: 'utf8',
    logLevel: 'warning',
  });
}

async function main(): Promise<number> {
  rmSync(dist, { recursive: true, force: true });
  const tscPath = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const tsc = spawnSync(process.execPath, [tscPath, '-p', 'tsconfig.build.json', '--emitDeclarationOnly'], { cwd: root, stdio: 'inherit' });
  if (tsc.status !== 0) return tsc.status ?? 1;
  await bundleEntries();
  copyConsoleAssets();

  const problems: string[] = [];
  const files = filesUnder(dist);
  for (const file of files.filter((f) => f.endsWith('.d.ts'))) {
    const text = readFileSync(file, 'utf8');
    const rewritten = text.replace(SPECIFIER, (_match, lead: string, quote: string, spec: string) =>
      spec.endsWith('.ts') ? `${lead}${quote}${spec.slice(0, -3)}.js${quote}` : `${lead}${quote}${spec}${quote}`,
    );
    if (rewritten !== text) writeFileSync(file, rewritten);
  }
  for (const file of files.filter((f) => f.endsWith('.js') || f.endsWith('.d.ts'))) {
    for (const match of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      const spec = match[3] ?? '';
      const target = join(dirname(file), spec);
      const where = `${relative(root, file)}: ${spec}`;
      if (!spec.endsWith('.js')) problems.push(`${where} does not end in .js`);
      else if (!existsSync(file.endsWith('.d.ts') ? declarationOf(target) : target)) problems.push(`${where} names no emitted file`);
    }
  }
  if (!existsSync(CLI_ENTRY)) problems.push(`${relative(root, CLI_ENTRY)} was not emitted`);
  else if (!readFileSync(CLI_ENTRY, 'utf8').startsWith('#!/usr/bin/env node\n'))
    problems.push(`${relative(root, CLI_ENTRY)} lost its #! line`);
  else chmodSync(CLI_ENTRY, 0o755);

  for (const problem of problems) console.error(`build: ${problem}`);
  if (problems.length > 0) return 1;
  console.log(`build: ${files.length} files in ${relative(root, dist)}/`);
  return 0;
}

process.exitCode = await main();

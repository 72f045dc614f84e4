// `npm run build`: compiles the shipped code (src/ and machines/, per tsconfig.build.json) into
// dist/ — JavaScript without comments and .d.ts declarations with them, no source maps — and checks
// the result. TypeScript rewrites the sources' relative `.ts` imports to `.js` in the JavaScript
// but keeps them in the declarations; those are rewritten here, so every emitted file names the
// files that are actually shipped. Every relative specifier is then checked to end in `.js` and
// to name an emitted file, and the CLI entry to start with its `#!` line and be executable.
// The console's web page is copied beside its module (`dist/src/console/static/`), with the three
// vendor modules its import map names and their licences (`dist/src/console/vendor/`), so an
// installed package serves the page without Preact or htm installed.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

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

function main(): number {
  rmSync(dist, { recursive: true, force: true });
  // Two passes: the declarations keep every doc comment (what an editor shows a Host developer);
  // the JavaScript leaves comments out, since the sources with them are one link away.
  for (const pass of [['--emitDeclarationOnly'], ['--declaration', 'false', '--removeComments']]) {
    const tscPath = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const tsc = spawnSync(process.execPath, [tscPath, '-p', 'tsconfig.build.json', ...pass], { cwd: root, stdio: 'inherit' });
    if (tsc.status !== 0) return tsc.status ?? 1;
  }
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

process.exitCode = main();

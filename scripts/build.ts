// `npm run build`: compiles the shipped code (src/ and machines/, per tsconfig.build.json) into
// dist/ — JavaScript, .d.ts declarations and source maps that carry their sources — and checks
// the result. TypeScript rewrites the sources' relative `.ts` imports to `.js` in the JavaScript
// but keeps them in the declarations; those are rewritten here, so every emitted file names the
// files that are actually shipped. Every relative specifier is then checked to end in `.js` and
// to name an emitted file, and the CLI entry to start with its `#!` line and be executable.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
/** The executable named by package.json `bin`. */
const CLI_ENTRY = join(dist, 'src', 'cli', 'bin.js');

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
  const tsc = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (tsc.status !== 0) return tsc.status ?? 1;

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

// The benchmarks run as JavaScript compiled by TypeScript, the same compiler and options that
// build dist/ — the code a Host runs — and not as sources through tsx. tsx's transform keeps
// function names by wrapping every function it defines in a naming call (esbuild's `keepNames`),
// closures made inside hot loops included, which no shipped build does and which slows the very
// paths the benchmarks time.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Compiles `tree`'s src/, machines/ and bench/ (and what they import) with `tree`'s
 * tsconfig.build.json, emitting JavaScript only into `<tree>/.tmp/bench` (mirroring the source
 * tree), and answers the compiled file of each benchmark: `.tmp/bench/bench/<name>.bench.js`.
 * `compilerRoot` is the checkout whose TypeScript compiles, so that two trees compared are
 * compiled alike. Throws when the compiler fails.
 */
export function compileBenchmarks(tree: string, compilerRoot: string = tree): (name: string) => string {
  const dir = join(tree, '.tmp', 'bench');
  const config = join(tree, '.tmp', 'tsconfig.bench.json');
  mkdirSync(join(tree, '.tmp'), { recursive: true });
  rmSync(dir, { recursive: true, force: true });
  writeFileSync(
    config,
    `${JSON.stringify({
      extends: '../tsconfig.build.json',
      compilerOptions: { outDir: './bench', rootDir: '..', declaration: false, sourceMap: false, inlineSources: false, noCheck: true },
      include: ['../src', '../machines', '../bench'],
    })}\n`,
  );
  const tsc = spawnSync(process.execPath, [join(compilerRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', config], {
    cwd: tree,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (tsc.status !== 0) throw new Error(`compiling the benchmarks of ${tree} failed with exit code ${tsc.status ?? tsc.signal}`);
  return (name) => join(dir, 'bench', `${name}.bench.js`);
}

/** Node's arguments to run `file` as a child: through tsx for a TypeScript source, else as it is. */
export const runnable = (file: string): string[] => (file.endsWith('.ts') ? ['--import', 'tsx', file] : [file]);

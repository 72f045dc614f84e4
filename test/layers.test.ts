// The import direction of the source tree: the pure layers never import the layers above them.
// No file in src/domain or machines imports the runtime, the adapters, the service, the tool or
// the remote handlers; machines import only `xstate`, each other and src/domain. Every import is
// read from the source text (static, re-export and dynamic forms) and resolved to a repository
// path; a known exception is listed below with its reason, so any new violation fails.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** `from` → `to` imports that break a rule and are accepted, each with its reason. */
const KNOWN_EXCEPTIONS: ReadonlyArray<{ readonly from: string; readonly to: string; readonly why: string }> = [
  {
    from: 'machines/index.ts',
    to: 'src/runtime/scheduleSupervisor.ts',
    why: 'the public entry point re-exports the supervisor assembled with its effect actors; no machine imports it',
  },
];

const FORBIDDEN_FOR_PURE = ['src/runtime/', 'src/adapters/', 'src/service.ts', 'src/tools/', 'src/remote/'];

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = posix.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (entry.name.endsWith('.ts')) out.push(path);
  }
  return out;
}

/** The module specifiers a source text imports or re-exports. */
function importSpecifiers(text: string): string[] {
  const specs: string[] = [];
  const patterns = [/\bfrom\s+['"]([^'"]+)['"]/g, /\bimport\s+['"]([^'"]+)['"]/g, /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g];
  for (const pattern of patterns) for (const match of text.matchAll(pattern)) specs.push(match[1]!);
  return specs;
}

/** A specifier as a repository path (relative ones), or the bare package name. */
function resolveSpecifier(file: string, spec: string): string {
  if (!spec.startsWith('.')) return spec;
  return relative(root, join(root, dirname(file), spec))
    .split(sep)
    .join('/');
}

interface Violation {
  readonly from: string;
  readonly to: string;
  readonly rule: string;
}

/** The rule violations of one file's imports. */
function violationsOf(file: string, specs: readonly string[]): Violation[] {
  const out: Violation[] = [];
  const pure = file.startsWith('src/domain/') || file.startsWith('machines/');
  for (const spec of specs) {
    const to = resolveSpecifier(file, spec);
    if (pure && FORBIDDEN_FOR_PURE.some((prefix) => to === prefix || to.startsWith(prefix))) {
      out.push({ from: file, to, rule: 'src/domain and machines never import the runtime, adapters, service, tools or remote' });
    } else if (file.startsWith('machines/') && !(to === 'xstate' || to.startsWith('machines/') || to.startsWith('src/domain/'))) {
      out.push({ from: file, to, rule: 'machines import only xstate, machines and src/domain' });
    }
  }
  return out;
}

const isKnown = (v: Violation): boolean => KNOWN_EXCEPTIONS.some((e) => e.from === v.from && e.to === v.to);

describe('import direction', () => {
  const files = [...sourceFiles('src/domain'), ...sourceFiles('machines')];

  it('finds the source files it checks', () => {
    expect(files).toContain('machines/supervisorMachine.ts');
    expect(files.some((f) => f.startsWith('src/domain/'))).toBe(true);
  });

  it('no file in src/domain or machines imports a higher layer; machines import only xstate and src/domain', () => {
    const violations = files.flatMap((file) => violationsOf(file, importSpecifiers(readFileSync(join(root, file), 'utf8'))));
    expect(violations.filter((v) => !isKnown(v))).toEqual([]);
  });

  it('every known exception is still needed (remove it once the import is gone)', () => {
    const violations = files.flatMap((file) => violationsOf(file, importSpecifiers(readFileSync(join(root, file), 'utf8'))));
    for (const exception of KNOWN_EXCEPTIONS) expect(violations.some((v) => v.from === exception.from && v.to === exception.to)).toBe(true);
  });

  it('the check itself catches each kind of upward import', () => {
    const text = [
      "import { runSlot } from '../src/runtime/slotRunner.ts';",
      "export { x } from '../src/tools/handlers.ts';",
      "const m = await import('../src/adapters/jsonFileStorage.ts');",
      "import type { Clock } from '../src/ports.ts';",
      "import { z } from 'zod';",
      "import { setup } from 'xstate';",
      "import type { TaskRow } from '../src/domain/types.ts';",
    ].join('\n');
    expect(
      violationsOf('machines/example.ts', importSpecifiers(text))
        .map((v) => v.to)
        .sort(),
    ).toEqual(['src/adapters/jsonFileStorage.ts', 'src/ports.ts', 'src/runtime/slotRunner.ts', 'src/tools/handlers.ts', 'zod']);
    expect(violationsOf('src/domain/example.ts', importSpecifiers("import { planRemote } from '../remote/handlers.ts';"))).toHaveLength(1);
    expect(violationsOf('src/domain/example.ts', importSpecifiers("import type { Clock } from '../ports.ts';"))).toEqual([]);
  });
});

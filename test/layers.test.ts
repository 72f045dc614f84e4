// The import direction of the source tree: the pure layers never import the layers above them.
// No file in src/domain or machines imports the planning layer, the runtime, the adapters, the
// service, the tools or the remote namespace; machines import only `xstate`, each other and
// src/domain. The planning layer (src/planning: what a mailbox slot decides) imports only
// src/domain, itself, the tool names and — as types only — the machines' events and the ports;
// never the runtime, the adapters, the service or the remote namespace. src/tools and src/remote
// (definitions, formats, the Host-facing types) never import the runtime, the adapters or the
// service; the runtime may import the planning layer. Every import is read from the source text
// (static, re-export and dynamic forms, noting the type-only ones) and resolved to a repository
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

const FORBIDDEN_FOR_PURE = ['src/planning/', 'src/runtime/', 'src/adapters/', 'src/service.ts', 'src/tools/', 'src/remote/'];

/** What the planning layer never imports, not even as a type. */
const FORBIDDEN_FOR_PLANNING = ['src/runtime/', 'src/adapters/', 'src/service.ts', 'src/tools/handlers', 'src/remote/'];

/** What the planning layer may import: the pure domain and itself, and the tool names for its refusals. */
const ALLOWED_FOR_PLANNING = ['src/domain/', 'src/planning/', 'src/tools/definitions.ts'];

/** What the planning layer may import as types only: the actors' effects and events, and the storage batch. */
const ALLOWED_TYPES_FOR_PLANNING = ['machines/events.ts', 'src/ports.ts'];

/** What src/tools and src/remote never import. */
const FORBIDDEN_FOR_DEFINITIONS = ['src/runtime/', 'src/adapters/', 'src/service.ts'];

const startsWithAny = (path: string, prefixes: readonly string[]): boolean => prefixes.some((p) => path === p || path.startsWith(p));

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

/** One import of a source text: its specifier, and whether the statement imports types only. */
interface ImportRef {
  readonly spec: string;
  readonly typeOnly: boolean;
}

/** The imports of a source text; `import type …` and `export type …` statements are type-only. */
function importsOf(text: string): ImportRef[] {
  const typeOnly = [...text.matchAll(/\b(?:import|export)\s+type\s+[^'";]*?\bfrom\s+['"]([^'"]+)['"]/g)].map((m) => m[1]!);
  return importSpecifiers(text).map((spec) => {
    const at = typeOnly.indexOf(spec);
    if (at < 0) return { spec, typeOnly: false };
    typeOnly.splice(at, 1);
    return { spec, typeOnly: true };
  });
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

/** The rule violations of one file's imports (at most one per import). */
function violationsOf(file: string, specs: readonly (string | ImportRef)[]): Violation[] {
  const out: Violation[] = [];
  const pure = file.startsWith('src/domain/') || file.startsWith('machines/');
  const planning = file.startsWith('src/planning/');
  const definitions = file.startsWith('src/tools/') || file.startsWith('src/remote/');
  for (const ref of specs) {
    const { spec, typeOnly } = typeof ref === 'string' ? { spec: ref, typeOnly: false } : ref;
    const to = resolveSpecifier(file, spec);
    if (pure && startsWithAny(to, FORBIDDEN_FOR_PURE)) {
      out.push({ from: file, to, rule: 'src/domain and machines never import planning, runtime, adapters, service, tools or remote' });
    } else if (file.startsWith('machines/') && !(to === 'xstate' || to.startsWith('machines/') || to.startsWith('src/domain/'))) {
      out.push({ from: file, to, rule: 'machines import only xstate, machines and src/domain' });
    } else if (planning && startsWithAny(to, FORBIDDEN_FOR_PLANNING)) {
      out.push({ from: file, to, rule: 'src/planning never imports the runtime, adapters, service, tool handlers or remote' });
    } else if (planning && !startsWithAny(to, ALLOWED_FOR_PLANNING) && !(typeOnly && ALLOWED_TYPES_FOR_PLANNING.includes(to))) {
      out.push({
        from: file,
        to,
        rule: 'src/planning imports only src/domain, src/planning, the tool names, and types of the events and ports',
      });
    } else if (definitions && startsWithAny(to, FORBIDDEN_FOR_DEFINITIONS)) {
      out.push({ from: file, to, rule: 'src/tools and src/remote never import the runtime, adapters or service' });
    }
  }
  return out;
}

const isKnown = (v: Violation): boolean => KNOWN_EXCEPTIONS.some((e) => e.from === v.from && e.to === v.to);

/** The checked layers, each with its files. */
const LAYERS = ['src/domain', 'machines', 'src/planning', 'src/tools', 'src/remote', 'src/runtime'] as const;

const violationsIn = (files: readonly string[]): Violation[] =>
  files.flatMap((file) => violationsOf(file, importsOf(readFileSync(join(root, file), 'utf8'))));

describe('import direction', () => {
  const byLayer = new Map(LAYERS.map((layer) => [layer, sourceFiles(layer)] as const));
  const layer = (name: (typeof LAYERS)[number]): string[] => byLayer.get(name) ?? [];
  const files = [...byLayer.values()].flat();

  it('finds the source files it checks', () => {
    for (const [name, list] of byLayer) console.log(`${name} (${list.length}): ${list.map((f) => f.slice(name.length + 1)).join(' ')}`);
    expect(files).toContain('machines/supervisorMachine.ts');
    expect(layer('src/domain').length).toBeGreaterThan(0);
    expect(layer('src/planning')).toEqual(
      expect.arrayContaining([
        'src/planning/mutations.ts',
        'src/planning/slotPlan.ts',
        'src/planning/toolPlans.ts',
        'src/planning/remotePlans.ts',
      ]),
    );
    expect(layer('src/tools')).toContain('src/tools/definitions.ts');
    expect(layer('src/remote')).toContain('src/remote/types.ts');
  });

  it('no file in src/domain or machines imports a higher layer; machines import only xstate and src/domain', () => {
    const violations = violationsIn([...layer('src/domain'), ...layer('machines')]);
    expect(violations.filter((v) => !isKnown(v))).toEqual([]);
  });

  it('src/planning imports only src/domain, itself, the tool names and types of the events and ports', () => {
    expect(violationsIn(layer('src/planning')).filter((v) => !isKnown(v))).toEqual([]);
  });

  it('src/tools and src/remote never import the runtime, the adapters or the service', () => {
    expect(violationsIn([...layer('src/tools'), ...layer('src/remote')]).filter((v) => !isKnown(v))).toEqual([]);
  });

  it('every known exception is still needed (remove it once the import is gone)', () => {
    const violations = violationsIn(files);
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
    expect(violationsOf('src/domain/example.ts', importSpecifiers("import { planCreate } from '../planning/mutations.ts';"))).toHaveLength(
      1,
    );
  });

  it('the check itself catches each kind of import the planning layer must not make', () => {
    const text = [
      "import type { TaskTable } from '../runtime/taskTable.ts';",
      "import { planRemote } from '../remote/handlers.ts';",
      "export { planToolCall } from '../tools/handlers.ts';",
      "const m = await import('../adapters/memoryStorage.ts');",
      "import { createScheduleService } from '../service.ts';",
      "import { isActorEffect } from '../../machines/events.ts';",
      "import { z } from 'zod';",
      "import type { TaskRow } from '../domain/types.ts';",
      "import { describeValue } from '../domain/argShape.ts';",
      "import {\n  type ActorEffect,\n} from '../../machines/mailbox.ts';",
      "import type {\n  ActorEffect,\n  DomainChange,\n} from '../../machines/events.ts';",
      "export type { CommitBatch } from '../ports.ts';",
      "import { TOOL_NAMES } from '../tools/definitions.ts';",
      "import { answer } from './slotPlan.ts';",
    ].join('\n');
    expect(
      violationsOf('src/planning/example.ts', importsOf(text))
        .map((v) => v.to)
        .sort(),
    ).toEqual([
      'machines/events.ts',
      'machines/mailbox.ts',
      'src/adapters/memoryStorage.ts',
      'src/remote/handlers.ts',
      'src/runtime/taskTable.ts',
      'src/service.ts',
      'src/tools/handlers.ts',
      'zod',
    ]);
    // The same module imported once for types and once for values: only the value import breaks the rule.
    const both = "import type { Operation } from '../../machines/events.ts';\nimport { isOperation } from '../../machines/events.ts';";
    expect(violationsOf('src/planning/example.ts', importsOf(both))).toHaveLength(1);
  });

  it('the check itself catches src/tools or src/remote importing the runtime, and lets the runtime import planning', () => {
    expect(violationsOf('src/tools/example.ts', importsOf("import type { TaskTable } from '../runtime/taskTable.ts';"))).toHaveLength(1);
    expect(violationsOf('src/remote/example.ts', importsOf("import { runSlot } from '../runtime/slotRunner.ts';"))).toHaveLength(1);
    expect(violationsOf('src/remote/example.ts', importsOf("import type { DriftEntry } from '../domain/drift.ts';"))).toEqual([]);
    expect(violationsOf('src/runtime/example.ts', importsOf("import { planRemote } from '../planning/remotePlans.ts';"))).toEqual([]);
  });
});

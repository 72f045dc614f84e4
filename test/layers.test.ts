// The import direction of the source tree: the pure layers never import the layers above them.
// The ports (src/ports.ts), the lowest contract, import only src/domain and the machines' types.
// No file in src/domain or machines imports the planning layer, the runtime, the adapters, the
// cluster, the console, the service, the tools or an entry; machines import only `xstate`, each
// other and src/domain. The planning layer (src/planning: what a mailbox slot decides) imports only
// src/domain, itself, the tool names and — as types only — the machines' events and the ports;
// never the runtime, the adapters or the service. src/tools never imports the runtime, the
// adapters or the service; the runtime may import the planning layer, never an adapter (the
// default ports are filled in above it, in src/supervisor.ts). The adapters (src/adapters: the
// clock, the file, memory and PostgreSQL storages) import only src/domain, the ports and each
// other. The cluster (src/cluster) builds on the PostgreSQL adapter, the service and the runtime,
// and nothing below it imports it: only the `agent-schedule/postgres` entry (src/entries) does.
// The console imports only the package's public entries, and nothing else in src imports the
// console. The reference Host (host/) imports only the package entries; nothing in src imports it.
// Every import is read from the source text (static, re-export and dynamic forms, noting the
// type-only ones) and resolved to a repository path; a known exception is listed below with its
// reason, so any new violation fails.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** `from` → `to` imports that break a rule and are accepted, each with its reason. */
const KNOWN_EXCEPTIONS: ReadonlyArray<{ readonly from: string; readonly to: string; readonly why: string }> = [
  {
    from: 'machines/index.ts',
    to: 'src/entries/machines.ts',
    why: 'the source path tools resolve `agent-schedule/machines` to (the acceptance suites alias it there); it only points at the entry',
  },
];

/** The package entries: the files package.json `exports` names (src/entries holds the ones above two layers). */
const ENTRIES = ['src/index.ts', 'src/testing.ts', 'src/entries/', 'src/mcp/index.ts', 'src/console/index.ts'];

const FORBIDDEN_FOR_PURE = [
  'src/planning/',
  'src/runtime/',
  'src/adapters/',
  'src/cluster/',
  'src/console/',
  'src/entries/',
  'src/service.ts',
  'src/supervisor.ts',
  'src/tools/',
];

/** What the ports may import: the pure domain, and the machines' types (their replies) as types only. */
const ALLOWED_FOR_PORTS = ['src/domain/'];
const ALLOWED_TYPES_FOR_PORTS = ['machines/'];

/** What the planning layer never imports, not even as a type. */
const FORBIDDEN_FOR_PLANNING = ['src/runtime/', 'src/adapters/', 'src/cluster/', 'src/service.ts', 'src/tools/handlers'];

/** What the planning layer may import: the pure domain and itself, and the tool names for its refusals. */
const ALLOWED_FOR_PLANNING = ['src/domain/', 'src/planning/', 'src/tools/definitions.ts'];

/** What the planning layer may import as types only: the actors' effects and events, and the storage batch. */
const ALLOWED_TYPES_FOR_PLANNING = ['machines/events.ts', 'src/ports.ts'];

/** What src/tools never imports. */
const FORBIDDEN_FOR_DEFINITIONS = ['src/runtime/', 'src/adapters/', 'src/cluster/', 'src/service.ts'];

/** What the runtime never imports: the adapters (its default ports come from above), and every layer above it. */
const FORBIDDEN_FOR_RUNTIME = [
  'src/adapters/',
  'src/cluster/',
  'src/console/',
  'src/entries/',
  'src/service.ts',
  'src/supervisor.ts',
  'host/',
];

/** What the adapters may import: the pure domain, the ports they implement, and each other. */
const ALLOWED_FOR_ADAPTERS = ['src/domain/', 'src/ports.ts', 'src/adapters/'];

/** What the cluster never imports: the console, the CLI and MCP server, the entries, the reference Host. */
const FORBIDDEN_FOR_CLUSTER = ['src/console/', 'src/cli/', 'src/mcp/', 'src/entries/', 'src/index.ts', 'src/testing.ts', 'host/'];

/** What the console may import outside its folder: the public entries (types only for the PostgreSQL one). */
const ALLOWED_FOR_CONSOLE = ['src/index.ts', 'src/inspector/index.ts'];
const ALLOWED_TYPES_FOR_CONSOLE = ['src/entries/postgres.ts'];

/** Folders only some layers may import: the folder, and the importers allowed besides itself. */
const IMPORTED_ONLY_BY: ReadonlyArray<{ readonly folder: string; readonly by: readonly string[] }> = [
  { folder: 'src/cluster/', by: ['src/entries/'] },
  { folder: 'src/console/', by: ['host/'] },
  { folder: 'src/entries/', by: ['src/console/', 'host/'] },
  { folder: 'host/', by: [] },
];

const startsWithAny = (path: string, prefixes: readonly string[]): boolean => prefixes.some((p) => path === p || path.startsWith(p));

/** The source files under `dir`, or `dir` itself when it names one file. */
function sourceFiles(dir: string): string[] {
  if (dir.endsWith('.ts')) return [dir];
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

/** The rule of the layer `file` is in that `to` breaks, if any. */
function ruleBroken(file: string, to: string, typeOnly: boolean, inRepo: boolean): string | undefined {
  if (file === 'src/ports.ts') {
    if (!startsWithAny(to, ALLOWED_FOR_PORTS) && !(typeOnly && startsWithAny(to, ALLOWED_TYPES_FOR_PORTS)))
      return "src/ports.ts imports only src/domain and the machines' types";
  } else if (file.startsWith('src/domain/') || file.startsWith('machines/')) {
    if (startsWithAny(to, FORBIDDEN_FOR_PURE))
      return 'src/domain and machines never import planning, runtime, adapters, cluster, console, service, tools or an entry';
    if (file.startsWith('machines/') && !(to === 'xstate' || to.startsWith('machines/') || to.startsWith('src/domain/')))
      return 'machines import only xstate, machines and src/domain';
  } else if (file.startsWith('src/planning/')) {
    if (startsWithAny(to, FORBIDDEN_FOR_PLANNING))
      return 'src/planning never imports the runtime, adapters, cluster, service or tool handlers';
    if (!startsWithAny(to, ALLOWED_FOR_PLANNING) && !(typeOnly && ALLOWED_TYPES_FOR_PLANNING.includes(to)))
      return 'src/planning imports only src/domain, src/planning, the tool names, and types of the events and ports';
  } else if (file.startsWith('src/tools/')) {
    if (startsWithAny(to, FORBIDDEN_FOR_DEFINITIONS)) return 'src/tools never imports the runtime, adapters, cluster or service';
  } else if (file.startsWith('src/runtime/')) {
    if (startsWithAny(to, FORBIDDEN_FOR_RUNTIME)) return 'src/runtime never imports an adapter or a layer above it';
  } else if (file.startsWith('src/adapters/')) {
    if (inRepo && !startsWithAny(to, ALLOWED_FOR_ADAPTERS)) return 'src/adapters import only src/domain, the ports and each other';
  } else if (file.startsWith('src/cluster/')) {
    if (startsWithAny(to, FORBIDDEN_FOR_CLUSTER)) return 'src/cluster never imports the console, the CLI, MCP, an entry or the Host';
  } else if (file.startsWith('src/console/')) {
    const outside = inRepo && !to.startsWith('src/console/');
    if (outside && !ALLOWED_FOR_CONSOLE.includes(to) && !(typeOnly && ALLOWED_TYPES_FOR_CONSOLE.includes(to)))
      return 'src/console imports only the public entries (types only for the PostgreSQL one)';
  } else if (file.startsWith('host/')) {
    if (inRepo && !to.startsWith('host/') && !startsWithAny(to, ENTRIES)) return 'host imports only the package entries';
  }
  for (const { folder, by } of IMPORTED_ONLY_BY) {
    if (to.startsWith(folder) && !file.startsWith(folder) && !startsWithAny(file, by))
      return `${folder} is imported only by ${by.length === 0 ? 'itself' : by.join(', ')}`;
  }
  return undefined;
}

/** The rule violations of one file's imports (at most one per import). */
function violationsOf(file: string, specs: readonly (string | ImportRef)[]): Violation[] {
  const out: Violation[] = [];
  for (const ref of specs) {
    const { spec, typeOnly } = typeof ref === 'string' ? { spec: ref, typeOnly: false } : ref;
    const to = resolveSpecifier(file, spec);
    const rule = ruleBroken(file, to, typeOnly, spec.startsWith('.'));
    if (rule !== undefined) out.push({ from: file, to, rule });
  }
  return out;
}

/** The repository paths or packages among `specs` that break the rules of `file`'s layer, sorted. */
const flaggedTargets = (file: string, specs: readonly (string | ImportRef)[]): string[] =>
  violationsOf(file, specs)
    .map((v) => v.to)
    .sort();

const isKnown = (v: Violation): boolean => KNOWN_EXCEPTIONS.some((e) => e.from === v.from && e.to === v.to);

/** The checked layers, each with its files. */
const LAYERS = [
  'src/ports.ts',
  'src/domain',
  'machines',
  'src/planning',
  'src/tools',
  'src/runtime',
  'src/adapters',
  'src/cluster',
  'src/console',
  'src/entries',
  'src/cli',
  'src/mcp',
  'src/inspector',
  'src/legacy',
  'host',
] as const;

const violationsIn = (files: readonly string[]): Violation[] =>
  files.flatMap((file) => violationsOf(file, importsOf(readFileSync(join(root, file), 'utf8'))));

describe('import direction', () => {
  const byLayer = new Map(LAYERS.map((layer) => [layer, sourceFiles(layer)] as const));
  const layer = (name: (typeof LAYERS)[number]): string[] => byLayer.get(name) ?? [];
  const files = [...byLayer.values()].flat();

  it('finds the source files it checks', () => {
    for (const [name, list] of byLayer)
      console.log(`${name} (${list.length}): ${list.map((f) => (f === name ? f : f.slice(name.length + 1))).join(' ')}`);
    expect(files).toContain('machines/supervisorMachine.ts');
    expect(layer('src/ports.ts')).toEqual(['src/ports.ts']);
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
    expect(layer('src/adapters')).toEqual(
      expect.arrayContaining(['src/adapters/jsonFileStorage.ts', 'src/adapters/postgres/rowColumns.ts']),
    );
    expect(layer('src/cluster')).toContain('src/cluster/clusterService.ts');
    expect(layer('src/console')).toContain('src/console/index.ts');
    expect(layer('src/entries')).toEqual(['src/entries/machines.ts', 'src/entries/postgres.ts']);
    expect(layer('host')).toEqual(expect.arrayContaining(['host/main.ts', 'host/sessions/fileSessions.ts']));
  });

  /** Each rule's title and the layers it checks. */
  const RULES: ReadonlyArray<readonly [string, readonly (typeof LAYERS)[number][]]> = [
    ["src/ports.ts imports only src/domain and the machines' types", ['src/ports.ts']],
    ['no file in src/domain or machines imports a higher layer; machines import only xstate and src/domain', ['src/domain', 'machines']],
    ['src/planning imports only src/domain, itself, the tool names and types of the events and ports', ['src/planning']],
    ['src/tools never imports the runtime, the adapters, the cluster or the service', ['src/tools']],
    ['src/runtime imports no adapter and no layer above it', ['src/runtime']],
    ['src/adapters import only src/domain, the ports and each other', ['src/adapters']],
    ['src/cluster imports the PostgreSQL adapter and the service, never the console, an entry or the Host', ['src/cluster']],
    ['src/console imports only the public entries', ['src/console']],
    ['host imports only the package entries', ['host']],
  ];

  it.each(RULES)('%s', (_title, layers) => {
    expect(violationsIn(layers.flatMap(layer)).filter((v) => !isKnown(v))).toEqual([]);
  });

  it('the cluster, the console, the entries and the Host are imported only from above', () => {
    const topLevel = readdirSync(join(root, 'src'))
      .filter((name) => name.endsWith('.ts'))
      .map((name) => `src/${name}`);
    expect(topLevel).toEqual(expect.arrayContaining(['src/ports.ts', 'src/service.ts', 'src/supervisor.ts']));
    const violations = violationsIn([...files, ...topLevel]).filter((v) => IMPORTED_ONLY_BY.some(({ folder }) => v.to.startsWith(folder)));
    expect(violations.filter((v) => !isKnown(v))).toEqual([]);
  });

  it('no machine imports machines/index.ts, the pointer to the entry above them', () => {
    const importers = layer('machines').filter((file) =>
      importsOf(readFileSync(join(root, file), 'utf8')).some(
        (ref) => resolveSpecifier(file, typeof ref === 'string' ? ref : ref.spec) === 'machines/index.ts',
      ),
    );
    expect(importers).toEqual([]);
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
      "import type { TaskRow } from '../src/domain/tasks/types.ts';",
    ].join('\n');
    expect(flaggedTargets('machines/example.ts', importSpecifiers(text))).toEqual([
      'src/adapters/jsonFileStorage.ts',
      'src/ports.ts',
      'src/runtime/slotRunner.ts',
      'src/tools/handlers.ts',
      'zod',
    ]);
    expect(
      violationsOf('src/domain/example.ts', importSpecifiers("import { shardOwners } from '../cluster/shardOwners.ts';")),
    ).toHaveLength(1);
    expect(violationsOf('src/domain/example.ts', importSpecifiers("import type { Clock } from '../ports.ts';"))).toEqual([]);
    expect(violationsOf('src/domain/example.ts', importSpecifiers("import { planCreate } from '../planning/mutations.ts';"))).toHaveLength(
      1,
    );
  });

  it("the check itself keeps the ports below the runtime, the inspector and the machines' values", () => {
    const text = [
      "import type { ScheduleConfig } from './runtime/config.ts';",
      "import type { ScheduleInspectionEvent } from './inspector/inspectionEvent.ts';",
      "import { SESSION_GROUPS } from '../machines/events.ts';",
      "import type { ActorRef } from 'xstate';",
      "import type { ReplyValue } from '../machines/replies.ts';",
      "import type { TaskRow } from './domain/tasks/types.ts';",
      "import { shardOf } from './domain/tasks/sessionShard.ts';",
    ].join('\n');
    expect(flaggedTargets('src/ports.ts', importsOf(text))).toEqual([
      'machines/events.ts',
      'src/inspector/inspectionEvent.ts',
      'src/runtime/config.ts',
      'xstate',
    ]);
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
    expect(flaggedTargets('src/planning/example.ts', importsOf(text))).toEqual([
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

  it('the check itself catches src/tools importing the runtime, and lets the runtime import planning', () => {
    expect(violationsOf('src/tools/example.ts', importsOf("import type { TaskTable } from '../runtime/taskTable.ts';"))).toHaveLength(1);
    expect(violationsOf('src/tools/example.ts', importsOf("import type { DriftEntry } from '../domain/drift.ts';"))).toEqual([]);
    expect(violationsOf('src/runtime/example.ts', importsOf("import { planRemote } from '../planning/remotePlans.ts';"))).toEqual([]);
  });

  it('the check itself catches the runtime importing an adapter, and an adapter importing anything above the ports', () => {
    expect(
      violationsOf('src/runtime/example.ts', importsOf("import { jsonFileStorage } from '../adapters/jsonFileStorage.ts';")),
    ).toHaveLength(1);
    const adapter = [
      "import { SESSION_GROUPS } from '../../../machines/events.ts';",
      "import { createClusterService } from '../../cluster/clusterService.ts';",
      "import { resolveConfig } from '../../runtime/config.ts';",
      "import type { CommitBatch } from '../../ports.ts';",
      "import { shardOf } from '../../domain/sessionShard.ts';",
      "import type { DomainState } from '../domainState.ts';",
      "import pg from 'pg';",
      "import { PGlite } from '@electric-sql/pglite';",
    ].join('\n');
    expect(flaggedTargets('src/adapters/postgres/example.ts', importsOf(adapter))).toEqual([
      'machines/events.ts',
      'src/cluster/clusterService.ts',
      'src/runtime/config.ts',
    ]);
  });

  it('the check itself keeps the cluster, the console and the Host in their places', () => {
    expect(violationsOf('src/cluster/example.ts', importsOf("import { shardOf } from '../adapters/postgres/rowColumns.ts';"))).toEqual([]);
    expect(violationsOf('src/cluster/example.ts', importsOf("import type { Console } from '../console/options.ts';"))).toHaveLength(1);
    expect(violationsOf('src/cluster/example.ts', importsOf("import { postgresStorage } from '../entries/postgres.ts';"))).toHaveLength(1);
    expect(violationsOf('src/service.ts', importsOf("import type { ClusterService } from './cluster/clusterService.ts';"))).toHaveLength(1);
    expect(violationsOf('src/entries/example.ts', importsOf("export { postgresStorage } from '../cluster/clusterStorage.ts';"))).toEqual(
      [],
    );
    expect(violationsOf('src/console/example.ts', importsOf("import type { Logger } from '../index.ts';"))).toEqual([]);
    expect(violationsOf('src/console/example.ts', importsOf("import type { ClusterService } from '../entries/postgres.ts';"))).toEqual([]);
    expect(violationsOf('src/console/example.ts', importsOf("import { postgresStorage } from '../entries/postgres.ts';"))).toHaveLength(1);
    expect(violationsOf('src/console/example.ts', importsOf("import { TaskTable } from '../runtime/taskTable.ts';"))).toHaveLength(1);
    expect(violationsOf('src/cli/example.ts', importsOf("import { createConsole } from '../console/index.ts';"))).toHaveLength(1);
    expect(violationsOf('host/example.ts', importsOf("import { createConsole } from '../src/console/index.ts';"))).toEqual([]);
    expect(violationsOf('host/example.ts', importsOf("import { postgresStorage } from '../src/entries/postgres.ts';"))).toEqual([]);
    expect(
      violationsOf('host/example.ts', importsOf("import { quoteSchema } from '../src/adapters/postgres/migrations.ts';")),
    ).toHaveLength(1);
    expect(violationsOf('src/runtime/example.ts', importsOf("import { createHost } from '../../host/createHost.ts';"))).toHaveLength(1);
  });
});

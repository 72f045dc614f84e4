// Shared by the tool-format tests: a service on memory storage and a manual clock, the schema of a
// tool in any format, a walk over every sub-schema, Ajv in strict mode (draft 2020-12), and the
// strict-mode form of a call's arguments (nulls for every member the call does not use).
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import {
  createScheduleService,
  type JsonObjectSchema,
  type JsonSchema,
  memoryStorage,
  type ScheduleService,
  type ToolDefinitionsByFormat,
  type ToolFormat,
  toolDefinitionsFor,
} from '../../src/index.ts';
import { createFakeSessions, createManualClock, type ManualClock } from '../../src/testing.ts';

export const T0 = '2030-01-07T08:00:00.000Z';

export interface Opened {
  readonly service: ScheduleService;
  readonly clock: ManualClock;
  readonly sessions: ReturnType<typeof createFakeSessions>;
}

const open: ScheduleService[] = [];

/** A service on memory storage, fake Sessions and a manual clock at `start`. */
export async function openService(start = T0): Promise<Opened> {
  const clock = createManualClock(start);
  const sessions = createFakeSessions();
  const service = await createScheduleService({
    sessions,
    storage: memoryStorage(),
    clock,
    logger: { warn: () => {}, error: () => {} },
  });
  clock.attach(service);
  open.push(service);
  return { service, clock, sessions };
}

/** Closes every service `openService` opened (for afterEach). */
export async function closeServices(): Promise<void> {
  for (const service of open.splice(0)) await service.close();
}

/** A tool's name in any format. */
export function nameOf(tool: ToolDefinitionsByFormat[ToolFormat]): string {
  return 'function' in tool ? tool.function.name : tool.name;
}

/** A tool's input schema in any format. */
export function schemaOf(tool: ToolDefinitionsByFormat[ToolFormat]): JsonObjectSchema {
  if ('inputSchema' in tool) return tool.inputSchema;
  if ('input_schema' in tool) return tool.input_schema;
  if ('function' in tool) return tool.function.parameters;
  return tool.parameters;
}

/** The named tool's schema in `format`. */
export function schemaFor(format: ToolFormat, name: string): JsonObjectSchema {
  const tool = toolDefinitionsFor(format).find((t) => nameOf(t) === name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  return schemaOf(tool);
}

/** One sub-schema met by a walk, with its JSON-pointer-like path and its nesting depth in objects. */
export interface Visited {
  readonly schema: JsonSchema;
  readonly path: string;
  readonly objectDepth: number;
}

/** Every sub-schema of `root` (itself included), through properties, items and anyOf. */
export function walk(root: JsonSchema, path = '#', objectDepth = 0): Visited[] {
  const isObject = root.type === 'object' || (Array.isArray(root.type) && root.type.includes('object'));
  const depth = objectDepth + (isObject ? 1 : 0);
  const out: Visited[] = [{ schema: root, path, objectDepth: depth }];
  for (const [name, member] of Object.entries(root.properties ?? {})) out.push(...walk(member, `${path}/properties/${name}`, depth));
  if (root.items !== undefined) out.push(...walk(root.items, `${path}/items`, depth));
  (root.anyOf ?? []).forEach((branch, i) => {
    out.push(...walk(branch, `${path}/anyOf/${i}`, depth));
  });
  return out;
}

/** Ajv 8 in strict mode, draft 2020-12. */
export const strictAjv = (): Ajv2020 => new Ajv2020({ strict: true, allErrors: true });

/** A compiled validator for a tool's schema in `format`. */
export function validatorFor(format: ToolFormat, name: string): ValidateFunction {
  return strictAjv().compile(schemaFor(format, name));
}

/** `args` as a strict-mode model sends them: every top-level member of the strict schema, null where unused. */
export function strictForm(name: string, args: Record<string, unknown>): Record<string, unknown> {
  const schema = schemaFor('openai-strict', name);
  const out: Record<string, unknown> = {};
  for (const member of Object.keys(schema.properties)) out[member] = member in args ? args[member] : null;
  return out;
}

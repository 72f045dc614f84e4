// The tool definitions against each provider's documented rules, checked by walking every schema:
// MCP and Anthropic want an object schema with no combinator at its top level; OpenAI's function
// names are limited to [a-zA-Z0-9_-]{1,64}; OpenAI's strict mode wants every object closed and
// listing every property as required, optional members nullable, and only the keywords of its
// strict subset. Every schema of every format compiles under Ajv's strict mode (draft 2020-12),
// every format is generated from the same four tools, and the four stay small.
import { encode } from 'gpt-tokenizer';
import { type JsonSchema, TOOL_DEFINITIONS, TOOL_FORMATS, toolDefinitionsFor } from '../../src/index.ts';
import { nameOf, schemaFor, schemaOf, strictAjv, walk } from './support.ts';

const NAMES = ['schedule_create', 'schedule_list', 'schedule_update', 'schedule_delete'];
const TOP_LEVEL_COMBINATORS = ['oneOf', 'anyOf', 'allOf', 'not', 'if', 'then', 'else'];

// OpenAI's strict subset (Structured Outputs, "Supported schemas"): these types, and these
// keywords — the composition keyword anyOf, the string keyword pattern, the number keywords
// minimum/maximum, the array keywords minItems/maxItems; not minLength, maxLength, uniqueItems,
// oneOf, allOf, not, if/then/else, patternProperties and the like.
const STRICT_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
const STRICT_ALLOWED = new Set([
  'type',
  'description',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'anyOf',
  'enum',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'format',
  '$ref',
  '$defs',
]);
const STRICT_MAX_DEPTH = 10;
const STRICT_MAX_PROPERTIES = 5000;

const typesOf = (schema: JsonSchema): string[] =>
  Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
const acceptsNull = (schema: JsonSchema): boolean =>
  typesOf(schema).includes('null') || (schema.anyOf ?? []).some((branch) => typesOf(branch).includes('null'));

describe('every format', () => {
  it.each(TOOL_FORMATS)('%s: the four tools, each with an object schema that compiles under Ajv strict mode', (format) => {
    const tools = toolDefinitionsFor(format);
    expect(tools.map(nameOf).sort()).toEqual([...NAMES].sort());
    for (const tool of tools) {
      const schema = schemaOf(tool);
      expect(schema.type, nameOf(tool)).toBe('object');
      expect(() => strictAjv().compile(schema), `${format} ${nameOf(tool)}`).not.toThrow();
      for (const key of TOP_LEVEL_COMBINATORS) expect(schema, `${format} ${nameOf(tool)}: ${key}`).not.toHaveProperty(key);
    }
  });

  it.each(TOOL_FORMATS)('%s: names and descriptions come from the one source, and every tool is described', (format) => {
    const tools = toolDefinitionsFor(format);
    for (const [i, tool] of tools.entries()) {
      const source = TOOL_DEFINITIONS[i]!;
      expect(nameOf(tool)).toBe(source.name);
      expect('function' in tool ? tool.function.description : tool.description).toBe(source.description);
      expect(nameOf(tool)).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(source.description.length).toBeGreaterThan(40);
    }
  });

  it('service.toolDefinitions is the MCP format', async () => {
    expect(JSON.parse(JSON.stringify(TOOL_DEFINITIONS))).toEqual(toolDefinitionsFor('mcp'));
  });

  it('each call returns fresh objects: editing one leaves the source and the next call as they were', () => {
    const first = toolDefinitionsFor('anthropic');
    first[0]!.input_schema.properties.prompt = { type: 'number' };
    first[0]!.input_schema.required?.push('weekly');
    expect(toolDefinitionsFor('anthropic')[0]!.input_schema.properties.prompt).toMatchObject({ type: 'string' });
    expect(TOOL_DEFINITIONS[0]!.inputSchema.required).toEqual(['prompt', 'title']);
  });

  it('an unknown format is refused by name', () => {
    expect(() => toolDefinitionsFor('gemini' as never)).toThrow(/unknown format "gemini"; the formats are mcp, anthropic/);
  });
});

describe('the shapes', () => {
  it('mcp, anthropic, openai and openai-chat carry the same plain schemas', () => {
    const plain = toolDefinitionsFor('mcp').map((t) => t.inputSchema);
    expect(toolDefinitionsFor('anthropic').map((t) => t.input_schema)).toEqual(plain);
    expect(toolDefinitionsFor('openai').map((t) => t.parameters)).toEqual(plain);
    expect(toolDefinitionsFor('openai-chat').map((t) => t.function.parameters)).toEqual(plain);
  });

  it('anthropic: {name, description, input_schema} and nothing else', () => {
    for (const tool of toolDefinitionsFor('anthropic')) expect(Object.keys(tool).sort()).toEqual(['description', 'input_schema', 'name']);
  });

  it("openai: the Responses API's function tool with strict false; openai-chat: the Chat API's function wrapper", () => {
    for (const tool of toolDefinitionsFor('openai')) {
      expect(Object.keys(tool).sort()).toEqual(['description', 'name', 'parameters', 'strict', 'type']);
      expect(tool).toMatchObject({ type: 'function', strict: false });
    }
    for (const tool of toolDefinitionsFor('openai-chat')) {
      expect(Object.keys(tool).sort()).toEqual(['function', 'type']);
      expect(Object.keys(tool.function).sort()).toEqual(['description', 'name', 'parameters']);
    }
  });
});

describe('openai-strict stays inside the strict subset', () => {
  const strictTools = toolDefinitionsFor('openai-strict');

  it('is the Responses shape with strict true', () => {
    for (const tool of strictTools) expect(tool).toMatchObject({ type: 'function', strict: true, parameters: { type: 'object' } });
  });

  it.each(strictTools.map((t) => [t.name, t] as const))(
    '%s: every object closed, every property required, only subset keywords',
    (_name, tool) => {
      let properties = 0;
      for (const { schema, path, objectDepth } of walk(tool.parameters)) {
        for (const key of Object.keys(schema)) expect(STRICT_ALLOWED.has(key), `${path}: keyword ${key}`).toBe(true);
        for (const type of typesOf(schema)) expect(STRICT_TYPES.has(type), `${path}: type ${type}`).toBe(true);
        expect(objectDepth, path).toBeLessThanOrEqual(STRICT_MAX_DEPTH);
        if (schema.properties !== undefined || typesOf(schema).includes('object')) {
          expect(schema.additionalProperties, `${path}: additionalProperties`).toBe(false);
          expect([...(schema.required ?? [])].sort(), `${path}: required`).toEqual(Object.keys(schema.properties ?? {}).sort());
          properties += Object.keys(schema.properties ?? {}).length;
        }
        if (schema.anyOf !== undefined) expect(schema.anyOf.length, path).toBeGreaterThan(0);
      }
      expect(properties).toBeLessThanOrEqual(STRICT_MAX_PROPERTIES);
      expect(tool.parameters, 'the root is an object, not an anyOf').not.toHaveProperty('anyOf');
    },
  );

  it('a member that is optional in the plain schema is nullable in the strict one, and only those', () => {
    for (const tool of strictTools) {
      const plain = schemaFor('mcp', tool.name);
      for (const [member, schema] of Object.entries(tool.parameters.properties)) {
        const optional = !(plain.required ?? []).includes(member);
        expect(acceptsNull(schema), `${tool.name}.${member}`).toBe(optional);
      }
    }
  });

  it('optional typed members are [T, "null"]; optional unions get a null branch', () => {
    const create = schemaFor('openai-strict', 'schedule_create').properties;
    expect(create.after_seconds?.type).toEqual(['integer', 'null']);
    expect(create.daily?.type).toEqual(['object', 'null']);
    expect(create.at?.anyOf?.at(-1)).toEqual({ type: 'null' });
    expect(create.prompt?.type).toBe('string');
    const update = schemaFor('openai-strict', 'schedule_update').properties;
    expect(update.change?.anyOf?.at(-1)).toEqual({ type: 'null' });
    expect(update.title?.type).toEqual(['string', 'null']);
  });
});

describe('the plain schemas say what the handler enforces', () => {
  it('schedule_create has the six timings as optional members and says "exactly one" in its description', () => {
    const create = TOOL_DEFINITIONS.find((t) => t.name === 'schedule_create')!;
    expect(create.inputSchema.required).toEqual(['prompt', 'title']);
    expect(Object.keys(create.inputSchema.properties)).toEqual([
      'prompt',
      'title',
      'after_seconds',
      'at',
      'every_seconds',
      'daily',
      'weekly',
      'cron',
    ]);
    expect(create.description).toContain('exactly one timing');
  });

  it('schedule_update offers a change of each kind but after', () => {
    const change = schemaFor('mcp', 'schedule_update').properties.change!;
    expect(change.anyOf?.map((branch) => branch.properties?.kind?.const)).toEqual(['at', 'every', 'daily', 'weekly', 'cron']);
  });
});

describe('size', () => {
  it('the four tools together stay under 1,800 tokens in every format (o200k_base)', () => {
    for (const format of TOOL_FORMATS) {
      const tokens = toolDefinitionsFor(format).reduce((sum, tool) => sum + encode(JSON.stringify(tool)).length, 0);
      expect(tokens, format).toBeLessThan(1800);
    }
  });
});

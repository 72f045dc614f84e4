// OpenAI's strict mode (Structured Outputs) takes a subset of JSON Schema: every object closed
// with `additionalProperties: false` and listing every property in `required`, an optional member
// made nullable instead, and only some keywords — string `pattern`, integer `minimum`/`maximum`,
// array `minItems`/`maxItems`, `enum`, `anyOf`, but no `minLength`, `maxLength`, `uniqueItems` or
// `const`. `toStrictSchema` derives that form from a tool's plain schema; the tool's handler still
// checks everything the strict form can no longer say (callTool reads the nulls as absent).
import type { JsonObjectSchema, JsonSchema, JsonSchemaType, JsonStrictObjectSchema } from './jsonSchema.ts';

/** The keywords a strict schema may carry (OpenAI's documented strict subset, as these tools use it). */
export const STRICT_KEYWORDS: readonly (keyof JsonSchema)[] = [
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
  'minItems',
  'maxItems',
];

/** Makes a schema also accept `null`: `[T, "null"]` for a typed one, a `{type: "null"}` branch for a union. */
function nullable(schema: JsonSchema): JsonSchema {
  if (schema.anyOf !== undefined) return { ...schema, anyOf: [...schema.anyOf, { type: 'null' }] };
  const types: JsonSchemaType[] = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  if (types.length === 0) throw new TypeError('toStrictSchema: an optional member needs a type or an anyOf.');
  return { ...schema, type: types.includes('null') ? types : [...types, 'null'] };
}

function strict(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  if (schema.type !== undefined) out.type = schema.type;
  if (schema.description !== undefined) out.description = schema.description;
  if (schema.properties !== undefined) {
    const required = new Set(schema.required ?? []);
    const properties: { [name: string]: JsonSchema } = {};
    for (const [name, member] of Object.entries(schema.properties)) {
      properties[name] = required.has(name) ? strict(member) : nullable(strict(member));
    }
    out.properties = properties;
    out.required = Object.keys(properties);
    out.additionalProperties = false;
  }
  if (schema.items !== undefined) out.items = strict(schema.items);
  if (schema.anyOf !== undefined) out.anyOf = schema.anyOf.map(strict);
  if (schema.const !== undefined) out.enum = [schema.const];
  if (schema.enum !== undefined) out.enum = [...schema.enum];
  if (schema.pattern !== undefined) out.pattern = schema.pattern;
  if (schema.minimum !== undefined) out.minimum = schema.minimum;
  if (schema.maximum !== undefined) out.maximum = schema.maximum;
  if (schema.minItems !== undefined) out.minItems = schema.minItems;
  if (schema.maxItems !== undefined) out.maxItems = schema.maxItems;
  return out;
}

/** The strict-mode form of a tool's input schema (a new object; the plain schema is untouched). */
export function toStrictSchema(schema: JsonObjectSchema): JsonStrictObjectSchema {
  const converted = strict(schema);
  return {
    type: 'object',
    ...(converted.description === undefined ? {} : { description: converted.description }),
    properties: converted.properties ?? {},
    required: converted.required ?? [],
    additionalProperties: false,
  };
}

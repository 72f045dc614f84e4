// The JSON Schema vocabulary the tool schemas are written in: a small subset of draft 2020-12
// (types, object members, arrays, strings, integers, `anyOf`, `const`/`enum`), each keyword
// meaning the same in draft-07, so the schemas declare no `$schema`. Type aliases rather than
// interfaces, so that a schema is assignable where an SDK asks for `{ [key: string]: unknown }`.

/** A JSON Schema primitive type name. */
export type JsonSchemaType = 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean' | 'null';

/** A JSON Schema as the tools use it. */
export type JsonSchema = {
  type?: JsonSchemaType | JsonSchemaType[];
  description?: string;
  properties?: { [name: string]: JsonSchema };
  required?: string[];
  additionalProperties?: boolean;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  const?: string;
  enum?: string[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
};

/** A tool's input schema: a closed object at the top level, with no combinator there. */
export type JsonObjectSchema = {
  type: 'object';
  description?: string;
  properties: { [name: string]: JsonSchema };
  required?: string[];
  additionalProperties: false;
};

/** A tool's input schema in OpenAI's strict mode: every property is listed in `required`. */
export type JsonStrictObjectSchema = {
  type: 'object';
  description?: string;
  properties: { [name: string]: JsonSchema };
  required: string[];
  additionalProperties: false;
};

/** A deep copy of a schema (schemas hold only JSON values). */
export function copySchema<T extends JsonSchema | JsonObjectSchema>(schema: T): T {
  return structuredClone(schema);
}

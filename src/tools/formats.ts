// The four tools in the shape each model API takes them, all generated from TOOL_DEFINITIONS:
// MCP (`inputSchema`), Anthropic's Messages API (`input_schema`), OpenAI's Responses API
// (`parameters`, `strict: false`, or the strict-mode schema with `strict: true`) and OpenAI's Chat
// Completions API (`function: {…}`). Each call returns fresh objects, so an SDK or a Host that
// edits them cannot change the source.
import { TOOL_DEFINITIONS, type ToolDefinition, type ToolName } from './definitions.ts';
import { copySchema, type JsonObjectSchema, type JsonStrictObjectSchema } from './jsonSchema.ts';
import { toStrictSchema } from './strictSchema.ts';

/** MCP `tools/list` entries (also `service.toolDefinitions`). */
export type McpToolDefinition = { name: ToolName; description: string; inputSchema: JsonObjectSchema };

/** Anthropic Messages API `tools` entries. */
export type AnthropicToolDefinition = { name: ToolName; description: string; input_schema: JsonObjectSchema };

/** OpenAI Responses API function tools. */
export type OpenAIFunctionToolDefinition = {
  type: 'function';
  name: ToolName;
  description: string;
  parameters: JsonObjectSchema;
  strict: false;
};

/** OpenAI Responses API function tools in strict mode (Structured Outputs). */
export type OpenAIStrictFunctionToolDefinition = {
  type: 'function';
  name: ToolName;
  description: string;
  parameters: JsonStrictObjectSchema;
  strict: true;
};

/** OpenAI Chat Completions API function tools. */
export type OpenAIChatToolDefinition = {
  type: 'function';
  function: { name: ToolName; description: string; parameters: JsonObjectSchema };
};

/** Each format's tool shape. */
export type ToolDefinitionsByFormat = {
  mcp: McpToolDefinition;
  anthropic: AnthropicToolDefinition;
  openai: OpenAIFunctionToolDefinition;
  'openai-chat': OpenAIChatToolDefinition;
  'openai-strict': OpenAIStrictFunctionToolDefinition;
};

/** A model API's tool format. */
export type ToolFormat = keyof ToolDefinitionsByFormat;

/** Every format, in the order docs/models.md lists them. */
export const TOOL_FORMATS: readonly ToolFormat[] = ['mcp', 'anthropic', 'openai', 'openai-chat', 'openai-strict'];

/** True for a known format name. */
export const isToolFormat = (value: unknown): value is ToolFormat => TOOL_FORMATS.includes(value as ToolFormat);

const BUILDERS: { [F in ToolFormat]: (tool: ToolDefinition) => ToolDefinitionsByFormat[F] } = {
  mcp: (tool) => ({ name: tool.name, description: tool.description, inputSchema: copySchema(tool.inputSchema) }),
  anthropic: (tool) => ({ name: tool.name, description: tool.description, input_schema: copySchema(tool.inputSchema) }),
  openai: (tool) => ({
    type: 'function',
    name: tool.name,
    description: tool.description,
    parameters: copySchema(tool.inputSchema),
    strict: false,
  }),
  'openai-chat': (tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: copySchema(tool.inputSchema) },
  }),
  'openai-strict': (tool) => ({
    type: 'function',
    name: tool.name,
    description: tool.description,
    parameters: toStrictSchema(tool.inputSchema),
    strict: true,
  }),
};

/**
 * The four tools as `format`'s API takes them. With `'openai-strict'`, pass `{ format:
 * 'openai-strict' }` to `callTool` too, so that the nulls a strict-mode model sends for unused
 * members are read as absent.
 */
export function toolDefinitionsFor<F extends ToolFormat>(format: F): Array<ToolDefinitionsByFormat[F]> {
  if (!isToolFormat(format)) {
    throw new TypeError(`toolDefinitionsFor: unknown format ${JSON.stringify(format)}; the formats are ${TOOL_FORMATS.join(', ')}.`);
  }
  const build = BUILDERS[format] as (tool: ToolDefinition) => ToolDefinitionsByFormat[F];
  return TOOL_DEFINITIONS.map(build);
}

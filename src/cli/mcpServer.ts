// The MCP server behind `agent-schedule mcp`: the low-level MCP `Server` offering the four tools
// (`tools/list` answers them in the 'mcp' format, raw JSON Schemas) bound to one Session through a
// backend that runs a call — a running Host, or a service embedded on a data folder. A tool's
// value is answered as JSON text; a refusal (any value carrying a `code`) is an MCP tool error,
// `isError: true`, whose text starts with the code and the message, so the model can correct
// itself. An unknown tool name is a protocol error, as MCP asks.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { TOOL_NAMES, type ToolName } from '../tools/definitions.ts';
import { toolDefinitionsFor } from '../tools/formats.ts';

/** Runs one tool call as the bound Session; resolves to the tool's JSON value (a refusal is a value too). */
export type ToolBackend = (name: ToolName, args: Record<string, unknown>) => Promise<unknown>;

/** What the server says about itself. */
export interface McpServerInfo {
  readonly version: string;
  /** Told to the client at initialize: where the reminders go. */
  readonly instructions: string;
}

const isToolName = (name: string): name is ToolName => (TOOL_NAMES as readonly string[]).includes(name);

function codeOf(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const code = (value as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** A tool's value as an MCP tool result: JSON text, or a tool error for a refusal. */
export function toolResult(value: unknown): CallToolResult {
  const code = codeOf(value);
  if (code === undefined) return { content: [{ type: 'text', text: JSON.stringify(value) }] };
  const message = (value as { message?: unknown }).message;
  const text = typeof message === 'string' ? `${code}: ${message}` : `${code}: ${JSON.stringify(value)}`;
  return { isError: true, content: [{ type: 'text', text }] };
}

/** A backend that threw, as an MCP tool error carrying the error's code (internal_error when it has none). */
export function failureResult(error: unknown): CallToolResult {
  const code = codeOf(error) ?? 'internal_error';
  const message = error instanceof Error ? error.message : String(error);
  return { isError: true, content: [{ type: 'text', text: `${code}: ${message}` }] };
}

/** The MCP server offering the four tools through `backend`. Connect it to a transport to serve. */
export function createMcpServer(backend: ToolBackend, info: McpServerInfo): Server {
  const server = new Server(
    { name: 'agent-schedule', version: info.version },
    { capabilities: { tools: {} }, instructions: info.instructions },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toolDefinitionsFor('mcp') }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args } = request.params;
    if (!isToolName(name)) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `There is no tool ${JSON.stringify(name)}; the schedule tools are ${TOOL_NAMES.join(', ')}.`,
      );
    }
    try {
      return toolResult(await backend(name, args ?? {}));
    } catch (error) {
      return failureResult(error);
    }
  });
  return server;
}

// The MCP server of `agent-schedule mcp` and of `agent-schedule/mcp`: the low-level MCP `Server`
// offering the four tools (`tools/list` answers them in the 'mcp' format, raw JSON Schemas) bound to
// one Session through a backend that runs a call — the Host's own service, a running Host over
// HTTP, or a service embedded on a data folder (backends.ts). A tool's
// value is answered as JSON text; a refusal (any value carrying a `code`) is an MCP tool error,
// `isError: true`, whose text starts with the code and the message, so the model can correct
// itself. An unknown tool name (the backend's `unknown_tool`) is a protocol error, as MCP asks,
// whose `data.code` is `unknown_tool`. A call's idempotency key is `_meta.callId`: MCP request ids
// start again with each connection, so only the client can name a call across a reconnect.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, type CallToolResult, ErrorCode, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ToolCallOptions } from '../tools/callFormat.ts';
import { toolDefinitionsFor } from '../tools/formats.ts';

/** What a backend passes on with a call: the client's idempotency key, when it sent one. */
export type ToolBackendOptions = Pick<ToolCallOptions, 'callId'>;

/** Runs one tool call as the bound Session; resolves to the tool's JSON value (a refusal is a value too). */
export type ToolBackend = (name: string, args: Record<string, unknown>, options: ToolBackendOptions) => Promise<unknown>;

/** What the server says about itself. */
export interface McpServerInfo {
  readonly version: string;
  /** Told to the client at initialize: where the reminders go. */
  readonly instructions: string;
}

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

/**
 * A JSON-RPC error answer of `rpcCode` (with `data` when given). Not an `McpError`: that one's
 * message already starts with "MCP error <number>:", which the SDK sends as it is and the
 * client's own McpError prefixes again.
 */
function protocolError(rpcCode: number, message: string, data?: unknown): Error {
  return Object.assign(new Error(message), data === undefined ? { code: rpcCode } : { code: rpcCode, data });
}

/** The call's `_meta.callId` as backend options; a callId that is not a string is refused. */
function callOptionsOf(meta: Record<string, unknown> | undefined): ToolBackendOptions {
  const callId = meta?.callId;
  if (callId === undefined) return {};
  if (typeof callId !== 'string') {
    throw protocolError(ErrorCode.InvalidParams, `_meta.callId must be a string (the call's idempotency key); got ${typeof callId}.`);
  }
  return { callId };
}

/** The MCP server offering the four tools through `backend`. Connect it to a transport to serve. */
export function createMcpServer(backend: ToolBackend, info: McpServerInfo): Server {
  const server = new Server(
    { name: 'agent-schedule', version: info.version },
    { capabilities: { tools: {} }, instructions: info.instructions },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toolDefinitionsFor('mcp') }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args, _meta: meta } = request.params;
    const options = callOptionsOf(meta);
    let value: unknown;
    try {
      value = await backend(name, args ?? {}, options);
    } catch (error) {
      return failureResult(error);
    }
    if (codeOf(value) === 'unknown_tool') {
      const message = (value as { message?: unknown }).message;
      const text = typeof message === 'string' ? message : `There is no tool ${JSON.stringify(name)}.`;
      throw protocolError(ErrorCode.InvalidParams, `unknown_tool: ${text}`, { code: 'unknown_tool' });
    }
    return toolResult(value);
  });
  return server;
}

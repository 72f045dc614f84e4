// `agent-schedule/mcp`: the MCP server of the schedule tools, for a Host that serves MCP from its
// own code — over stdio with the transport here, or over any transport of the MCP SDK. It needs the
// optional peer dependencies `@modelcontextprotocol/sdk` and `zod`, installed beside the package;
// nothing else in the package loads them.
//
//   const server = createMcpServer(serviceBackend(service, sessionId).call, { version, instructions });
//   await server.connect(mcpStdioTransport());

export { embeddedBackend, hostBackend, type McpBackend, serviceBackend, type ToolCaller } from './backends.ts';
export { createMcpServer, type McpServerInfo, type ToolBackend, type ToolBackendOptions } from './server.ts';
export { mcpStdioTransport } from './stdioTransport.ts';

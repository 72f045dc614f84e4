// The idempotency key of an MCP tool call, `_meta.callId`, on its way to the backend: the MCP
// server passes it as the `callId` option (a callId that is not a string is a protocol error), and
// the Host backend sends it as the `Idempotency-Key` header. In-process: the server over the SDK's
// in-memory transport with a backend that records its calls, and the Host backend against a bare
// HTTP server that records its requests' headers.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { hostBackend } from '../../src/mcp/backends.ts';
import { createMcpServer, type ToolBackendOptions } from '../../src/mcp/server.ts';

describe('agent-schedule mcp: _meta.callId', () => {
  const calls: Array<{ name: string; options: ToolBackendOptions }> = [];
  let client: Client;
  beforeAll(async () => {
    const server = createMcpServer(
      async (name, _args, options) => {
        calls.push({ name, options });
        return [];
      },
      { version: '0.0.0', instructions: 'test' },
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    client = new Client({ name: 'callid-test', version: '1.0.0' });
    await client.connect(clientSide);
  });
  afterAll(async () => {
    await client.close();
  });

  it('reaches the backend as the callId option, and is absent when the call has no _meta', async () => {
    calls.length = 0;
    await client.callTool({ name: 'schedule_list', arguments: {}, _meta: { callId: 'call-7' } });
    await client.callTool({ name: 'schedule_list', arguments: {} });
    expect(calls).toEqual([
      { name: 'schedule_list', options: { callId: 'call-7' } },
      { name: 'schedule_list', options: {} },
    ]);
  });

  it('a callId that is not a string is a protocol error (-32602) and the backend is not called', async () => {
    calls.length = 0;
    await expect(client.callTool({ name: 'schedule_list', arguments: {}, _meta: { callId: 7 } })).rejects.toMatchObject({
      code: -32602,
      message: "MCP error -32602: _meta.callId must be a string (the call's idempotency key); got number.",
    });
    expect(calls).toEqual([]);
  });

  it('the Host backend sends it as the Idempotency-Key header, and no such header without one', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const http = createServer((request, response) => {
      seen.push(request.headers);
      request.resume();
      request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('[]'));
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    try {
      const backend = hostBackend(`http://127.0.0.1:${(http.address() as AddressInfo).port}`, 's');
      expect(await backend.call('schedule_list', {}, { callId: 'call-8' })).toEqual([]);
      expect(await backend.call('schedule_list', {}, {})).toEqual([]);
      expect(seen.map((headers) => headers['idempotency-key'])).toEqual(['call-8', undefined]);
    } finally {
      await new Promise<void>((resolve) => http.close(() => resolve()));
    }
  });
});

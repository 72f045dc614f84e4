// `agent-schedule/mcp` as a Host uses it from its own process: the MCP server over its own service
// (`serviceBackend`), reached by the MCP SDK's Client over the SDK's in-memory transport. A create
// through MCP is a task of the bound Session that the Host delivers on its clock; a refusal is an
// MCP tool error carrying the code; closing the backend leaves the Host's service open.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createScheduleService, memoryStorage, type ScheduleService, toolDefinitionsFor } from 'agent-schedule';
import { createMcpServer, serviceBackend } from 'agent-schedule/mcp';
import { createFakeSessions, createManualClock, type FakeSessions, type ManualClock } from 'agent-schedule/testing';

let clock: ManualClock;
let sessions: FakeSessions;
let service: ScheduleService;
let client: Client;

beforeEach(async () => {
  clock = createManualClock('2030-01-01T09:00:00Z');
  sessions = createFakeSessions();
  service = await createScheduleService({ sessions, storage: memoryStorage(), clock });
  const backend = serviceBackend(service, 'desk');
  const server = createMcpServer(backend.call, { version: '0.0.0', instructions: 'The reminders of Session "desk".' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  client = new Client({ name: 'host-test', version: '1.0.0' });
  await client.connect(clientSide);
  await backend.close();
});

afterEach(async () => {
  await client.close();
  await service.close();
});

const textOf = (result: CallToolResult): string => (result.content[0]?.type === 'text' ? result.content[0].text : '');

describe('agent-schedule/mcp over a Host’s own service', () => {
  it('offers the four tools in the mcp format', async () => {
    expect((await client.listTools()).tools).toEqual(toolDefinitionsFor('mcp'));
  });

  it('creates a task of the bound Session, which the Host delivers when it is due', async () => {
    const created = (await client.callTool({
      name: 'schedule_create',
      arguments: { title: 'Stretch', prompt: 'Stand up and stretch.', after_seconds: 60 },
    })) as CallToolResult;
    expect(created.isError).not.toBe(true);
    expect(JSON.parse(textOf(created))).toMatchObject({ id: 'sch_1', title: 'Stretch' });
    await clock.advance(60_000);
    await service.whenIdle();
    expect(sessions.messages('desk').map((m) => m.text)).toEqual([expect.stringContaining('Stand up and stretch.')]);
    expect(sessions.messages('other')).toEqual([]);
  });

  it('answers a refusal as a tool error whose text starts with its code', async () => {
    const refused = (await client.callTool({ name: 'schedule_delete', arguments: { id: 'sch_9' } })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^schedule_not_found: /);
  });
});

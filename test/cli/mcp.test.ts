// `agent-schedule mcp` driven by the MCP SDK's own Client over stdio, the CLI spawned through tsx
// as an MCP client would spawn it: initialize, tools/list (the 'mcp' format), tools/call for
// create with each of the six timings, list, update and delete, a refused call (an MCP tool
// error carrying the code and message), another Session's task (schedule_not_found) and an
// unknown tool (a protocol error whose data.code is unknown_tool). Mostly against a temp data
// folder (`--data`), plus one server in front of a Host started in-process, whose test clock makes
// the reminder due and delivers it. A create repeated with one `_meta.callId` makes one task, on
// a folder and through a Host. Bad flags exit 2; a folder another server holds exits 1 with
// storage_locked. Each server is spawned once per describe and shared by its tests where they
// need no fresh folder or Session, since tsx takes a second or more to start one.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { main } from '../../src/cli/main.ts';
import { toolDefinitionsFor } from '../../src/index.ts';
import { startTestHost, type TestHost } from '../host/support.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

interface Connected {
  readonly client: Client;
  readonly stderr: () => string;
  close(): Promise<void>;
}

/** Spawns `agent-schedule mcp …args` and connects the SDK's Client to it over stdio. */
async function connect(...args: string[]): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'src/cli/bin.ts', 'mcp', ...args],
    cwd: root,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: 'agent-schedule-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

/** A tools/call, with its text parsed as JSON when the call succeeded. */
async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content[0]?.type === 'text' ? result.content[0].text : '';
  return {
    isError: result.isError === true,
    text,
    value: result.isError === true ? undefined : (JSON.parse(text) as Record<string, unknown>),
  };
}

/** Runs `agent-schedule mcp …args` to its exit, with stdin closed at once. */
const spawnMcp = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/bin.ts', 'mcp', ...args], { cwd: root, encoding: 'utf8', input: '' });

const dirs: string[] = [];
async function tempData(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agent-schedule-mcp-'));
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

const base = { prompt: 'Stretch', title: 'Stretch' };
const TIMINGS: Array<[string, Record<string, unknown>]> = [
  ['after', { after_seconds: 600 }],
  ['at', { at: '2099-01-02T09:00:00+08:00' }],
  ['every', { every_seconds: 3600 }],
  ['daily', { daily: { time: '09:30:00', time_zone: 'Europe/Berlin' } }],
  ['weekly', { weekly: { time: '09:00:00', time_zone: 'Asia/Shanghai', weekdays: [1, 3] } }],
  ['cron', { cron: { expression: '*/15 9-17 * * 1-5', time_zone: 'UTC' } }],
];

describe('agent-schedule mcp --data (embedded service)', () => {
  let dataDir: string;
  let server: Connected;
  beforeAll(async () => {
    dataDir = await tempData();
    server = await connect('--session', 'conv-1', '--data', dataDir);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('initializes as agent-schedule with tools, and says it cannot deliver', () => {
    expect(server.client.getServerVersion()).toMatchObject({ name: 'agent-schedule', version: '0.1.0' });
    expect(server.client.getServerCapabilities()).toHaveProperty('tools');
    expect(server.client.getInstructions()).toMatch(/Session "conv-1".*cannot deliver/);
  });

  it('lists the four tools in the mcp format', async () => {
    const { tools } = await server.client.listTools();
    expect(tools).toEqual(toolDefinitionsFor('mcp'));
  });

  it('creates with each of the six timings, lists, updates and deletes', async () => {
    const created: Array<Record<string, unknown>> = [];
    for (const [kind, timing] of TIMINGS) {
      const r = await call(server.client, 'schedule_create', { ...base, title: `T ${kind}`, ...timing });
      expect(r.isError, r.text).toBe(false);
      expect(r.value).toMatchObject({ kind, title: `T ${kind}`, deliveryMode: 'host' });
      created.push(r.value!);
    }
    const listed = await call(server.client, 'schedule_list', {});
    expect((listed.value as unknown as Array<{ id: string }>).map((v) => v.id).sort()).toEqual(created.map((v) => v.id).sort());

    const updated = await call(server.client, 'schedule_update', {
      id: created[2]!.id,
      title: 'Hourly, then daily',
      change: { kind: 'daily', time: '07:00:00', time_zone: 'Asia/Kolkata' },
    });
    expect(updated.value).toMatchObject({ id: created[2]!.id, kind: 'daily', title: 'Hourly, then daily', timeZone: 'Asia/Kolkata' });

    const deleted = await call(server.client, 'schedule_delete', { id: created[5]!.id });
    expect(deleted.value).toEqual({ id: created[5]!.id, deleted: true });
    expect(((await call(server.client, 'schedule_list', {})).value as unknown as unknown[]).length).toBe(5);
  });

  it('a refused call is an MCP tool error carrying the code and the message', async () => {
    const r = await call(server.client, 'schedule_create', { ...base, cron: { expression: '0 9 * * MON', time_zone: 'UTC' } });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/^invalid_rule: .*day-of-week/);
    const two = await call(server.client, 'schedule_create', { ...base, after_seconds: 60, every_seconds: 60 });
    expect(two).toMatchObject({ isError: true, text: expect.stringMatching(/^invalid_selector: /) });
  });

  it('an unknown tool is a protocol error (-32602) whose data.code is unknown_tool, its message prefixed once', async () => {
    const error = await server.client.callTool({ name: 'schedule_pause', arguments: {} }).then(
      () => undefined,
      (e: unknown) => e as { code?: unknown; data?: unknown; message?: unknown },
    );
    expect(error).toMatchObject({ code: -32602, data: { code: 'unknown_tool' } });
    expect(error?.message).toBe(
      'MCP error -32602: unknown_tool: There is no tool "schedule_pause"; the schedule tools are schedule_create, schedule_list, schedule_update and schedule_delete.',
    );
  });

  it('a create repeated with the same _meta.callId answers the first answer and makes one task', async () => {
    const keyed = async (callId: string, args: Record<string, unknown>) => {
      const result = (await server.client.callTool({ name: 'schedule_create', arguments: args, _meta: { callId } })) as CallToolResult;
      return result.content[0]?.type === 'text' ? result.content[0].text : '';
    };
    const count = async () => ((await call(server.client, 'schedule_list', {})).value as unknown as unknown[]).length;
    const before = await count();
    const args = { ...base, title: 'Keyed', after_seconds: 600 };
    const first = await keyed('call-1', args);
    expect(await keyed('call-1', args)).toBe(first);
    expect(await count()).toBe(before + 1);
    expect(await keyed('call-1', { ...args, title: 'Other' })).toMatch(/^idempotency_conflict: /);
  });

  it('a second server on the folder this one holds exits 1 with storage_locked naming the holder', () => {
    const r = spawnMcp('--session', 'conv-1', '--data', dataDir);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^storage_locked: The schedule domain is in use by process \d+: lock file .*schedule\.json\.lock\./);
    expect(r.stdout).toBe('');
  });

  it('another Session, on the same folder later, cannot see or change these tasks (schedule_not_found)', async () => {
    await server.close();
    const other = await connect('--session', 'conv-2', '--data', dataDir);
    try {
      expect((await call(other.client, 'schedule_list', {})).value).toEqual([]);
      const update = await call(other.client, 'schedule_update', { id: 'sch_1', title: 'Mine now' });
      expect(update.isError).toBe(true);
      expect(update.text).toMatch(/^schedule_not_found: /);
      const del = await call(other.client, 'schedule_delete', { id: 'sch_1' });
      expect(del.isError).toBe(true);
      expect(del.text).toBe('schedule_not_found: {"id":"sch_1","deleted":false,"code":"schedule_not_found"}');
    } finally {
      await other.close();
    }
    // The first Session's tasks survived both servers, untouched.
    server = await connect('--session', 'conv-1', '--data', dataDir);
    const mine = (await call(server.client, 'schedule_list', {})).value as unknown as Array<{ id: string; title: string }>;
    expect(mine.find((v) => v.id === 'sch_1')?.title).toBe('T after');
  });
});

describe('agent-schedule mcp --url (a running Host)', () => {
  let t: TestHost;
  let server: Connected;
  beforeAll(async () => {
    t = await startTestHost();
    server = await connect('--session', 'demo', '--url', t.url);
  });
  afterAll(async () => {
    await server?.close();
    await t?.close();
  });

  it('creates through the Host, which delivers the reminder into the Session when due', async () => {
    expect(server.client.getInstructions()).toContain('delivers each reminder into that Session');
    const created = await call(server.client, 'schedule_create', { prompt: 'Check the build', title: 'Build', after_seconds: 60 });
    expect(created.value).toMatchObject({ id: 'sch_1', kind: 'after', scheduledAt: '2030-01-07T08:01:00.000Z' });
    const refused = await call(server.client, 'schedule_create', { ...base, daily: { time: '09:00:00', time_zone: 'EST' } });
    expect(refused.text).toMatch(/^invalid_time_zone: /);
    await t.advance(60_000);
    const transcript = await t.get<unknown>('/api/sessions/demo/transcript');
    expect(JSON.stringify(transcript.body)).toContain('reminder_prompt_json: \\"Check the build\\"');
    expect((await call(server.client, 'schedule_list', {})).value).toEqual([]);
  });

  it('a create repeated with the same _meta.callId reaches the Host as one Idempotency-Key: one task', async () => {
    const create = { name: 'schedule_create', arguments: { ...base, after_seconds: 600 }, _meta: { callId: 'call-1' } };
    const first = (await server.client.callTool(create)) as CallToolResult;
    expect(first.isError).toBeFalsy();
    expect(await server.client.callTool(create)).toEqual(first);
    expect((await call(server.client, 'schedule_list', {})).value).toHaveLength(1);
  });

  it('a Host that does not answer is a tool error, host_unreachable', async () => {
    const server = await connect('--session', 'demo', '--url', 'http://127.0.0.1:9');
    try {
      const r = await call(server.client, 'schedule_list', {});
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(/^host_unreachable: No Host answers at http:\/\/127\.0\.0\.1:9/);
    } finally {
      await server.close();
    }
  });
});

describe('agent-schedule mcp usage', () => {
  async function inProcess(...args: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(['mcp', ...args], { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  it.each([
    ['no --session', [], /--session is required/],
    ['--url with --data', ['--session', 's', '--url', 'http://127.0.0.1:4319', '--data', '/tmp/x'], /Give --url or --data, not both/],
    ['an ftp --url', ['--session', 's', '--url', 'ftp://example.com'], /--url "ftp:\/\/example.com" is not an http:\/\/ or https:\/\/ URL/],
    ['an empty --data', ['--session', 's', '--data', ''], /--data needs a directory/],
    ['a Session id of 257 characters', ['--session', 'x'.repeat(257)], /--session must be at most 256 characters/],
    ['an unknown flag', ['--session', 's', '--bogus'], /Unknown option '--bogus'/],
    ['a positional argument', ['--session', 's', 'extra'], /Unexpected argument 'extra'/],
  ])('%s exits 2 with a clear message and a hint to the help', async (_label, args, message) => {
    const r = await inProcess(...args);
    expect(r.code).toBe(2);
    const [line, hint, ...more] = r.err.split('\n');
    expect(line).toMatch(message);
    expect(hint).toBe('Run `agent-schedule mcp --help` for its options.');
    expect(more).toEqual([]);
    expect(r.out).toBe('');
  });

  it('the real process exits 2 on bad flags and writes nothing to stdout', () => {
    const r = spawnMcp('--session', 's', '--url', 'x', '--data', 'y');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^Give --url or --data, not both\./);
    expect(r.stdout).toBe('');
  });

  it('--help says that nothing is delivered with --data, and why', async () => {
    const r = await inProcess('--help');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/NOTHING IS DELIVERED/);
    expect(r.out).toMatch(/delivery back\s+into a conversation always needs the Host's SessionController/);
    expect((await inProcess('--session', 's', '-h')).out).toContain('Usage: agent-schedule mcp');
  });
});

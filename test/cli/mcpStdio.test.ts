// `agent-schedule mcp --data` spoken to line by line, as raw JSON-RPC on its stdin, for what an SDK
// client never sends: a line longer than the 10 MiB limit (refused with -32600, and the server
// keeps serving), a line that is not JSON (-32700), JSON that is not a JSON-RPC message (-32600),
// and a blank line (ignored). The process is the real CLI (bin/agent-schedule.js), one server for
// all the lines, each answered in turn, so each refusal is followed by a request the same server
// still serves; the last test closes its stdin and expects exit 0 with the data folder's lock
// released.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin', 'agent-schedule.js');

/** The largest line the server reads, as the MCP SDK's stdio transport counts it. */
const LIMIT = 10 * 1024 * 1024;

interface Answer {
  readonly id?: string | number;
  readonly result?: Record<string, unknown>;
  readonly error?: { readonly code: number; readonly message: string };
}

interface RawServer {
  readonly dataDir: string;
  /** Writes `line` and a newline. */
  write(line: string): void;
  /** The next answer on stdout; rejects when the process exits first. */
  next(): Promise<Answer>;
  /** Closes stdin and resolves to the exit code and everything written to stderr. */
  end(): Promise<{ code: number | null; stderr: string }>;
}

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function start(): Promise<RawServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'agent-schedule-mcp-stdio-'));
  dirs.push(dataDir);
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [bin, 'mcp', '--session', 's', '--data', dataDir], {
    cwd: root,
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  // A refused write (the process already gone) is reported by `next` and `end`, not here.
  child.stdin.on('error', () => undefined);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const answers: Answer[] = [];
  const waiting: Array<(answer: Answer) => void> = [];
  let pending = '';
  child.stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    for (let nl = pending.indexOf('\n'); nl !== -1; nl = pending.indexOf('\n')) {
      const answer = JSON.parse(pending.slice(0, nl)) as Answer;
      pending = pending.slice(nl + 1);
      const taker = waiting.shift();
      if (taker === undefined) answers.push(answer);
      else taker(answer);
    }
  });

  return {
    dataDir,
    write: (line) => child.stdin.write(`${line}\n`),
    next() {
      const ready = answers.shift();
      if (ready !== undefined) return Promise.resolve(ready);
      return Promise.race([
        new Promise<Answer>((resolve) => waiting.push(resolve)),
        exited.then((code) => {
          throw new Error(`the server exited with ${code} instead of answering; stderr: ${JSON.stringify(stderr)}`);
        }),
      ]);
    },
    async end() {
      child.stdin.end();
      return { code: await exited, stderr };
    },
  };
}

const request = (id: number, method: string, params: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });

/** Starts a server and completes the MCP handshake. */
async function initialized(): Promise<RawServer> {
  const server = await start();
  server.write(request(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } }));
  expect((await server.next()).result).toMatchObject({ serverInfo: { name: 'agent-schedule' } });
  server.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  return server;
}

/** Ends the server and expects a clean exit with the data folder's lock released. */
async function expectCleanEnd(server: RawServer): Promise<void> {
  const { code, stderr } = await server.end();
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  expect(existsSync(join(server.dataDir, 'schedule.json.lock'))).toBe(false);
}

describe('agent-schedule mcp on raw stdin', () => {
  let server: RawServer;
  beforeAll(async () => {
    server = await initialized();
  });
  afterAll(async () => {
    // Ends the server when a test failed before the last one ended it.
    await server?.end();
  });

  it('refuses a line over 10 MiB with -32600 naming the limit, then answers the next request', async () => {
    server.write(request(2, 'tools/call', { name: 'schedule_list', arguments: {} }));
    expect((await server.next()).id).toBe(2);
    // A real tool call whose padding puts it one byte past the limit.
    const head = request(3, 'tools/call', { name: 'schedule_list', arguments: { pad: '' } });
    server.write(head.replace('"pad":""', `"pad":"${'x'.repeat(LIMIT + 1 - head.length)}"`));
    server.write(request(4, 'tools/call', { name: 'schedule_list', arguments: {} }));

    const refused = await server.next();
    expect(refused.id).toBeUndefined();
    expect(refused.error?.code).toBe(-32600);
    expect(refused.error?.message).toMatch(/10 MiB/);
    expect(await server.next()).toMatchObject({ id: 4, result: { content: [{ type: 'text', text: '[]' }] } });
  });

  it('a line of exactly 10 MiB is read', async () => {
    const head = request(5, 'tools/call', { name: 'schedule_list', arguments: { pad: '' } });
    server.write(head.replace('"pad":""', `"pad":"${'x'.repeat(LIMIT - head.length)}"`));
    // The padding is an unknown argument: the tool itself refuses it, so the line was read whole.
    expect(await server.next()).toMatchObject({ id: 5, result: { isError: true } });
  });

  it('a line that is not JSON is a parse error (-32700), and serving goes on', async () => {
    server.write('{"jsonrpc":"2.0","id":6,');
    const refused = await server.next();
    expect(refused.id).toBeUndefined();
    expect(refused.error?.code).toBe(-32700);
    server.write(request(7, 'tools/list'));
    expect(await server.next()).toMatchObject({ id: 7, result: { tools: expect.any(Array) } });
  });

  it('JSON that is not a JSON-RPC message is an invalid request (-32600) carrying its id; a blank line is ignored', async () => {
    server.write('');
    server.write(JSON.stringify({ jsonrpc: '1.0', id: 8, method: 'tools/list' }));
    expect(await server.next()).toMatchObject({ id: 8, error: { code: -32600 } });
    server.write(request(9, 'tools/list'));
    expect(await server.next()).toMatchObject({ id: 9, result: { tools: expect.any(Array) } });
  });

  it('closing stdin after all of these ends the server with exit 0 and its lock released', async () => {
    await expectCleanEnd(server);
  });
});

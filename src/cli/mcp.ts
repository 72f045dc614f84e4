// `agent-schedule mcp --session <id>`: a stdio MCP server offering the four schedule tools bound
// to one Session — of a running Host (`--url`), or of a service embedded on a data folder
// (`--data`), which cannot deliver. stdout carries only MCP messages; everything else goes to
// stderr. A line on stdin the server cannot read is answered with a JSON-RPC error
// (src/mcp/stdioTransport.ts). The server runs until its client closes stdin (or SIGINT/SIGTERM),
// then closes the service and exits 0. Bad flags exit 2; a data folder that cannot be opened exits
// 1 with its code. The server (src/mcp/, the MCP SDK and zod: optional peer dependencies) is loaded
// only when the command runs; without them it exits 1 with `missing_dependency` and the install line.
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { MAX_SESSION_ID_LENGTH } from '../domain/codec/index.ts';
import type { Logger } from '../ports.ts';
import { type CliIo, type Command, UsageError } from './command.ts';
import { DEFAULT_HOST_URL } from './hostClient.ts';
import { loadWithPeers } from './optionalPeers.ts';

/** What the MCP server needs installed beside the package. */
export const MCP_PEERS = ['@modelcontextprotocol/sdk', 'zod'] as const;

/** This package's manifest through its own `./package.json` export: the same file in the repository and when installed. */
const packageJson = createRequire(import.meta.url)('agent-schedule/package.json') as { readonly version: string };

const HELP = `Usage: agent-schedule mcp --session <id> [--url <url> | --data <dir>]

Runs an MCP server on stdio offering the model tools schedule_create, schedule_list,
schedule_update and schedule_delete, bound to one Session: a model using it sees and changes
that Session's reminders only. Point an MCP client (Claude Desktop, Claude Code, …) at it.

  --session <id>   the Session the tools act for (required)
  --url <url>      a running Host (default ${DEFAULT_HOST_URL}); the Host delivers each
                   reminder into the Session when it is due
  --data <dir>     instead of a Host, open the schedule in <dir>/schedule.json directly. There is
                   no Session controller here, so NOTHING IS DELIVERED by this server: due
                   reminders wait until a Host opens the folder. Not while a Host has it open
                   (the folder is locked to one owner).
  -h, --help       this help

A tool call may carry an idempotency key in its _meta.callId: a call repeated with the same key
answers the first answer and writes nothing (with --url it is sent as the Idempotency-Key header).

MCP gives a server no way to append a message to the client's conversation, so delivery back
into a conversation always needs the Host's SessionController.

The server needs the MCP SDK and zod, optional peer dependencies of agent-schedule:
  npm install ${MCP_PEERS.join(' ')}

Exit codes: 0 when the client closes the connection, 1 when the data folder cannot be opened (the
error code is printed) or the MCP SDK or zod is not installed (missing_dependency), 2 bad usage.`;

interface McpOptions {
  readonly sessionId: string;
  readonly url: string;
  readonly dataDir?: string;
}

function parseOptions(argv: readonly string[]): McpOptions | 'help' {
  let values: { session?: string; url?: string; data?: string; help?: boolean };
  try {
    values = parseArgs({
      args: [...argv],
      options: { session: { type: 'string' }, url: { type: 'string' }, data: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (values.help === true) return 'help';
  const sessionId = values.session;
  if (sessionId === undefined || sessionId === '') throw new UsageError('--session is required.');
  if (sessionId.length > MAX_SESSION_ID_LENGTH) throw new UsageError(`--session must be at most ${MAX_SESSION_ID_LENGTH} characters.`);
  if (values.url !== undefined && values.data !== undefined) throw new UsageError('Give --url or --data, not both.');
  if (values.data === '') throw new UsageError('--data needs a directory.');
  const url = values.url ?? DEFAULT_HOST_URL;
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw new UsageError(`--url ${JSON.stringify(url)} is not an http:// or https:// URL.`);
  }
  return values.data === undefined ? { sessionId, url } : { sessionId, url, dataDir: values.data };
}

/** Resolves when the client is gone: stdin ended or closed, or the process was asked to stop. */
function untilDisconnected(): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      process.stdin.off('end', done);
      process.stdin.off('close', done);
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.stdin.once('end', done);
    process.stdin.once('close', done);
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
}

/** Log lines of the embedded service, one per message, on stderr. */
function stderrLogger(io: CliIo): Logger {
  const line = (level: string, msg: string, data?: unknown) => {
    const cause = (data as { cause?: unknown } | undefined)?.cause;
    io.err(`agent-schedule mcp ${level}: ${msg}${cause instanceof Error ? ` (${cause.message})` : ''}`);
  };
  return { warn: (msg, data) => line('warning', msg, data), error: (msg, data) => line('error', msg, data) };
}

/** `agent-schedule mcp`. */
export const mcpCommand: Command = {
  name: 'mcp',
  summary: "run an MCP server (stdio) with a Session's model tools",
  help: HELP,
  async run(argv, io) {
    const options = parseOptions(argv);
    if (options === 'help') {
      io.out(HELP);
      return 0;
    }
    const { createMcpServer, embeddedBackend, hostBackend, mcpStdioTransport } = await loadWithPeers(
      'agent-schedule mcp',
      MCP_PEERS,
      () => import('../mcp/index.ts'),
    );
    const backend =
      options.dataDir === undefined
        ? hostBackend(options.url, options.sessionId)
        : await embeddedBackend(options.dataDir, options.sessionId, stderrLogger(io));
    const where =
      options.dataDir === undefined
        ? `the agent-schedule Host at ${options.url}, which delivers each reminder into that Session when it is due`
        : `the schedule in ${options.dataDir}; this server cannot deliver, so reminders fall due there and wait for a Host to open that folder`;
    const server = createMcpServer(backend.call, {
      version: packageJson.version,
      instructions: `These tools manage the reminders of Session ${JSON.stringify(options.sessionId)} in ${where}.`,
    });
    const disconnected = untilDisconnected();
    await server.connect(mcpStdioTransport());
    await disconnected;
    await server.close();
    await backend.close();
    return 0;
  },
};

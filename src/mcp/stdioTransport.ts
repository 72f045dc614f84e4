// The stdio transport of `agent-schedule mcp` (exported by `agent-schedule/mcp`): one JSON-RPC message per line on stdin, one per
// line on stdout, like the MCP SDK's StdioServerTransport, but a line the server cannot take is
// answered instead of ending the connection. The SDK's transport closes itself (and stops reading
// stdin, so the process exits with the storage still locked) on the first line past its 10 MiB
// buffer, and answers nothing to a line that is not JSON. Here a line over the limit is dropped
// unread and refused with -32600, a line that is not JSON gets the parse error -32700, JSON that is
// not a JSON-RPC message gets -32600 — and the next line is read as usual. Such an answer has no
// `id` when the line's id cannot be read: MCP's schema makes the id optional there, where bare
// JSON-RPC would send `null`, which the SDK's clients refuse to parse.
import type { Readable, Writable } from 'node:stream';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage, JSONRPCMessageSchema, type RequestId } from '@modelcontextprotocol/sdk/types.js';

/** The longest line read, in bytes without its newline: the SDK's own stdio limit. */
export const MAX_LINE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE;

const NEWLINE = 0x0a;

const requestIdOf = (value: unknown): RequestId | undefined => {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const id = (value as { id?: unknown }).id;
  return typeof id === 'string' || Number.isSafeInteger(id) ? (id as RequestId) : undefined;
};

/** An answer that is a response itself is never answered, so two such peers cannot talk in circles. */
const isResponseShaped = (value: unknown): boolean =>
  value !== null && typeof value === 'object' && ('result' in value || 'error' in value);

/**
 * A server transport over `input` and `output` (the process's stdin and stdout by default) that
 * refuses a line longer than `maxLineBytes`, or one that is not a JSON-RPC message, with a
 * JSON-RPC error answer and keeps reading.
 */
export function mcpStdioTransport(
  input: Readable = process.stdin,
  output: Writable = process.stdout,
  maxLineBytes: number = MAX_LINE_BYTES,
): Transport {
  let parts: Buffer[] = [];
  let size = 0;
  let dropping = false;

  const limit = maxLineBytes % (1024 * 1024) === 0 ? `${maxLineBytes / (1024 * 1024)} MiB` : `${maxLineBytes} bytes`;

  const write = (message: JSONRPCMessage): Promise<void> =>
    new Promise((resolve) => {
      if (output.write(serializeMessage(message))) resolve();
      else output.once('drain', resolve);
    });

  const refuse = (code: number, message: string, id?: RequestId): void => {
    const answer: JSONRPCMessage =
      id === undefined ? { jsonrpc: '2.0', error: { code, message } } : { jsonrpc: '2.0', id, error: { code, message } };
    write(answer).catch((error: unknown) => transport.onerror?.(error instanceof Error ? error : new Error(String(error))));
  };

  const receive = (line: string): void => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      refuse(ErrorCode.ParseError, `Parse error: the line is not JSON (${error instanceof Error ? error.message : String(error)}).`);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (parsed.success) {
      transport.onmessage?.(parsed.data);
      return;
    }
    if (isResponseShaped(value)) return;
    refuse(ErrorCode.InvalidRequest, 'Invalid request: the line is JSON but not a JSON-RPC 2.0 message.', requestIdOf(value));
  };

  const onData = (chunk: Buffer): void => {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      if (!dropping) {
        size += end - start;
        if (size > maxLineBytes) {
          parts = [];
          dropping = true;
          refuse(
            ErrorCode.InvalidRequest,
            `Request too large: a line longer than ${limit} (${maxLineBytes} bytes) was dropped unread; send each message in at most ${limit}.`,
          );
        } else if (end > start) {
          parts.push(chunk.subarray(start, end));
        }
      }
      if (newline === -1) return;
      if (!dropping) receive(Buffer.concat(parts).toString('utf8').replace(/\r$/, ''));
      parts = [];
      size = 0;
      dropping = false;
      start = newline + 1;
    }
  };

  const onError = (error: Error): void => transport.onerror?.(error);

  const transport: Transport = {
    async start() {
      input.on('data', onData);
      input.on('error', onError);
    },
    send: write,
    async close() {
      input.off('data', onData);
      input.off('error', onError);
      if (input.listenerCount('data') === 0) input.pause();
      parts = [];
      transport.onclose?.();
    },
  };
  return transport;
}

// The HTTP layer's safety checks. Every request must name the console in its `Host` header (a page
// on another site that rebinds its DNS name to 127.0.0.1 is refused): one of the allowed hosts,
// by default the loopback names on any port. A write whose `Origin` is neither an allowed host's
// own page (`http://`, on the entry's port, or on the port the request was sent to for an entry
// without one) nor an allowed origin is refused; bodies are JSON objects of at most the body limit, read within a
// deadline. Requests without an `Origin` (the CLI, curl) are not browsers' cross-site requests.
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { type AllowedHost, LOOPBACK_NAMES, parseAllowedHost } from './allowedHosts.ts';
import { ConsoleHttpError, sendFailure } from './failures.ts';
import { DEFAULT_CONSOLE_LIMITS } from './limits.ts';

/** Largest accepted request body by default. */
export const MAX_BODY_BYTES = DEFAULT_CONSOLE_LIMITS.maxBodyBytes;

/** Which `Host` headers and `Origin`s count as the console's own. */
export interface ConsoleIdentity {
  /** Whether a `Host` header value names the console. */
  isOwnHost(host: string): boolean;
  /** Whether a write from `origin`, sent to the `Host` header `host`, is accepted. */
  isOwnOrigin(origin: string, host: string): boolean;
}

/** A `Host` header (or an origin's host) as a lower-case name and its port, if it names one. */
function splitHost(text: string): { name: string; port?: number } {
  const host = text.toLowerCase();
  const colon = host.lastIndexOf(':');
  if (colon < 0 || host.endsWith(']') || (!host.startsWith('[') && host.indexOf(':') !== colon)) return { name: host };
  const port = host.slice(colon + 1);
  return /^\d{1,5}$/.test(port) ? { name: host.slice(0, colon), port: Number(port) } : { name: host };
}

/**
 * The identity of a console answering to `allowedHosts` (entries as `parseAllowedHost` reads
 * them: an entry without a port matches any port; default: the loopback names), and accepting
 * writes from `allowedOrigins` besides the allowed hosts' own pages. Throws an Error for a
 * malformed entry.
 */
export function consoleIdentity(allowedHosts: readonly string[] = LOOPBACK_NAMES, allowedOrigins: readonly string[] = []): ConsoleIdentity {
  const entries: AllowedHost[] = allowedHosts.map(parseAllowedHost);
  const origins = new Set(
    allowedOrigins.map((origin) => {
      let url: URL;
      try {
        url = new URL(origin);
      } catch {
        throw new Error(`${JSON.stringify(origin.slice(0, 100))} is not an origin such as https://ops.example.`);
      }
      return url.origin.toLowerCase();
    }),
  );
  const isOwnHost = (host: string): boolean => {
    const { name, port } = splitHost(host);
    // Browsers leave the default port out of the header.
    return entries.some((e) => e.name === name && (e.port === undefined || e.port === (port ?? 80)));
  };
  return {
    isOwnHost,
    isOwnOrigin(origin, host) {
      const text = origin.toLowerCase();
      if (origins.has(text)) return true;
      const match = /^http:\/\/([^/]+)$/.exec(text);
      if (match === null) return false;
      const { name, port = 80 } = splitHost(match[1] ?? '');
      // A page on another port is another site: an entry without a port (a loopback name) only
      // vouches for the port the request itself was sent to.
      const { port: ownPort = 80 } = splitHost(host);
      return entries.some((e) => e.name === name && (e.port ?? ownPort) === port);
    },
  };
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Refuses requests addressed to another host name, and cross-origin writes. */
export function guardIdentity(identity: ConsoleIdentity): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header('host') ?? new URL(c.req.url).host;
    if (!identity.isOwnHost(host))
      return sendFailure(
        c,
        'host_not_allowed',
        `This Host does not answer to ${JSON.stringify(host.slice(0, 200))}; use its loopback address or a name its allow-list names.`,
      );
    if (WRITE_METHODS.has(c.req.method)) {
      const origin = c.req.header('origin');
      if ((origin !== undefined && !identity.isOwnOrigin(origin, host)) || c.req.header('sec-fetch-site') === 'cross-site')
        return sendFailure(
          c,
          'origin_not_allowed',
          `Writes are accepted only from this Host's own page; got Origin ${JSON.stringify(origin?.slice(0, 200))}.`,
        );
    }
    await next();
  };
}

/**
 * Holds the reading of a request's body to `ms` milliseconds from the moment the request reached
 * the application: a body still incomplete then fails its read with `request_timeout` (408;
 * the answer closes the connection), so a handler never waits on a client that stopped sending.
 */
export function bodyDeadline(ms: number): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const source = c.req.raw.body;
    if (source === null) return next();
    const reader = source.getReader();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ConsoleHttpError('request_timeout', `The request body did not arrive within ${ms} ms.`)), ms);
    });
    expired.catch(() => undefined);
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const chunk = await Promise.race([reader.read(), expired]);
          if (chunk.done) {
            clearTimeout(timer);
            controller.close();
          } else controller.enqueue(chunk.value);
        } catch (error) {
          clearTimeout(timer);
          controller.error(error);
          reader.cancel(error).catch(() => undefined);
        }
      },
      cancel(reason) {
        clearTimeout(timer);
        return reader.cancel(reason);
      },
    });
    c.req.raw = new Request(c.req.raw, { body, duplex: 'half' } as RequestInit);
    try {
      await next();
    } finally {
      clearTimeout(timer);
    }
  };
}

/** Refuses bodies above `maxBytes` with `body_too_large`. */
export const limitBody = (maxBytes: number): MiddlewareHandler =>
  bodyLimit({
    maxSize: maxBytes,
    onError: (c) => sendFailure(c, 'body_too_large', `Request bodies are limited to ${maxBytes} bytes.`),
  });

/** The request's JSON object body; an empty body reads as `{}` when `emptyAsObject`. */
export async function readJsonObject(c: Context, emptyAsObject = false): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  if (text.trim() === '' && emptyAsObject) return {};
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type))
    throw new ConsoleHttpError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ConsoleHttpError('invalid_request', 'The request body is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ConsoleHttpError('invalid_request', 'The request body must be a JSON object.');
  return value as Record<string, unknown>;
}

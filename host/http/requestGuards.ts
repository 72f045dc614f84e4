// The HTTP layer's safety checks. Every request must name this Host in its `Host` header (a page
// on another site that rebinds its DNS name to 127.0.0.1 is refused): its loopback names, the
// address it is bound to, and the names of its allow-list — the only names a Host bound to every
// interface answers to besides loopback. A write whose `Origin` is not one of those is refused;
// bodies are JSON objects of at most `MAX_BODY_BYTES`, read within a deadline. Requests without
// an `Origin` (the CLI, curl) are not browsers' cross-site requests.
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { isWildcardAddress, parseAllowedHost } from './allowedHosts.ts';
import { HostHttpError, sendFailure } from './failures.ts';

/** Largest accepted request body. */
export const MAX_BODY_BYTES = 64 * 1024;

/** Which `Host` headers and `Origin`s count as this Host (lower case). */
export interface HostIdentity {
  /** Accepted `Host` header values. */
  readonly hosts: ReadonlySet<string>;
  /** Origins allowed to write. */
  readonly origins: ReadonlySet<string>;
}

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/**
 * The identity of a Host listening on `hostname:port` that also answers to `allowedHosts`
 * (entries as `ALLOWED_HOSTS` takes them; one without a port means the Host's port). Throws
 * when `hostname` binds every interface and no allowed host is given, or an entry is malformed.
 */
export function hostIdentity(hostname: string, port: number, allowedHosts: readonly string[] = []): HostIdentity {
  if (isWildcardAddress(hostname) && allowedHosts.length === 0)
    throw new Error(
      `A Host bound to ${hostname} (every interface) needs an allow-list of the host names clients use to reach it (allowedHosts; ALLOWED_HOSTS for npm start).`,
    );
  const bound = isWildcardAddress(hostname) ? [] : [hostname.includes(':') && !hostname.startsWith('[') ? `[${hostname}]` : hostname];
  const named = [...LOOPBACK_NAMES, ...bound].map((name) => ({ name: name.toLowerCase(), port }));
  const listed = allowedHosts.map((entry) => {
    const allowed = parseAllowedHost(entry);
    return { name: allowed.name, port: allowed.port ?? port };
  });
  const hosts = new Set<string>();
  const origins = new Set<string>();
  for (const { name, port: p } of [...named, ...listed]) {
    hosts.add(`${name}:${p}`);
    origins.add(`http://${name}:${p}`);
    // Browsers leave the default port out of both headers.
    if (p === 80) {
      hosts.add(name);
      origins.add(`http://${name}`);
    }
  }
  return { hosts, origins };
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Refuses requests addressed to another host name, and cross-origin writes. */
export function guardIdentity(identity: HostIdentity): MiddlewareHandler {
  return async (c, next) => {
    const host = (c.req.header('host') ?? '').toLowerCase();
    if (!identity.hosts.has(host))
      return sendFailure(
        c,
        'host_not_allowed',
        `This Host does not answer to ${JSON.stringify(host.slice(0, 200))}; use its loopback address or a name its allow-list names.`,
      );
    if (WRITE_METHODS.has(c.req.method)) {
      const origin = c.req.header('origin');
      const own = identity.origins.has((origin ?? '').toLowerCase());
      if ((origin !== undefined && !own) || c.req.header('sec-fetch-site') === 'cross-site')
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
      timer = setTimeout(() => reject(new HostHttpError('request_timeout', `The request body did not arrive within ${ms} ms.`)), ms);
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

/** Refuses bodies above `MAX_BODY_BYTES` with `body_too_large`. */
export const limitBody: MiddlewareHandler = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: (c) => sendFailure(c, 'body_too_large', `Request bodies are limited to ${MAX_BODY_BYTES} bytes.`),
});

/** The request's JSON object body; an empty body reads as `{}` when `emptyAsObject`. */
export async function readJsonObject(c: Context, emptyAsObject = false): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  if (text.trim() === '' && emptyAsObject) return {};
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type))
    throw new HostHttpError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HostHttpError('invalid_request', 'The request body is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new HostHttpError('invalid_request', 'The request body must be a JSON object.');
  return value as Record<string, unknown>;
}

// The HTTP layer's safety checks. Every request must name this Host in its `Host` header (a page
// on another site that rebinds its DNS name to 127.0.0.1 is refused); a write whose `Origin`
// is not the Host's own is refused; bodies are JSON objects of at most `MAX_BODY_BYTES`.
// Requests without an `Origin` (the CLI, curl) are not browsers' cross-site requests.
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HostHttpError, sendFailure } from './failures.ts';

/** Largest accepted request body. */
export const MAX_BODY_BYTES = 64 * 1024;

/** Which `Host` headers and `Origin`s count as this Host. */
export interface HostIdentity {
  /** Accepted `Host` header values; `null` accepts any (the Host was bound to every interface). */
  readonly hosts: ReadonlySet<string> | null;
  /** Origins allowed to write. When `hosts` is null, `http://<Host header>` is allowed as well. */
  readonly origins: ReadonlySet<string>;
}

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** The identity of a Host listening on `hostname:port`. */
export function hostIdentity(hostname: string, port: number): HostIdentity {
  const wildcard = hostname === '0.0.0.0' || hostname === '::';
  const bound = hostname.includes(':') ? `[${hostname}]` : hostname;
  const names = new Set([...LOOPBACK_NAMES, bound]);
  const hosts = new Set([...names].map((name) => `${name}:${port}`));
  const origins = new Set([...hosts].map((host) => `http://${host}`));
  return { hosts: wildcard ? null : hosts, origins };
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Refuses requests addressed to another host name, and cross-origin writes. */
export function guardIdentity(identity: HostIdentity): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header('host') ?? '';
    if (identity.hosts !== null && !identity.hosts.has(host))
      return sendFailure(c, 'host_not_allowed', `This Host does not answer to ${JSON.stringify(host)}; use its loopback address.`);
    if (WRITE_METHODS.has(c.req.method)) {
      const origin = c.req.header('origin');
      const own = identity.origins.has(origin ?? '') || (identity.hosts === null && origin === `http://${host}`);
      if ((origin !== undefined && !own) || c.req.header('sec-fetch-site') === 'cross-site')
        return sendFailure(
          c,
          'origin_not_allowed',
          `Writes are accepted only from this Host's own page; got Origin ${JSON.stringify(origin)}.`,
        );
    }
    await next();
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

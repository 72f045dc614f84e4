// Who may use the console. A Host fills `authorize(request, sessionId?)`; the default lets in
// loopback clients only. A `Request` carries no socket, so the client's address is what the
// server adapter hands over: `@hono/node-server` and `nodeListener` pass the Node request as
// `env.incoming`, whose socket names the peer; the console records it for `clientAddressOf`.
// Without one (an adapter that passes nothing), the default falls back to the request's own
// URL: it must name a loopback host — which the Host header decides, so that fallback only
// holds for a server that listens on loopback alone.
import { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { LOOPBACK_NAMES } from './allowedHosts.ts';

const addresses = new WeakMap<Request, string>();

/** Records the client address the adapter passed in `env` (`env.incoming.socket.remoteAddress`) for `request`. */
export function noteClientAddress(request: Request, env: unknown): void {
  const incoming = typeof env === 'object' && env !== null ? (env as { incoming?: unknown }).incoming : undefined;
  const address = incoming instanceof IncomingMessage ? incoming.socket.remoteAddress : undefined;
  if (address !== undefined) addresses.set(request, address);
}

/** The address of the client that sent `request`, when the server adapter told the console (see the file comment). */
export const clientAddressOf = (request: Request): string | undefined => addresses.get(request);

/** Whether `address` (an IP address) is a loopback one: 127.0.0.0/8, ::1, or 127.x mapped into IPv6. */
export function isLoopbackAddress(address: string): boolean {
  const bare = address.toLowerCase().replace(/^::ffff:/, '');
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return bare === '::1' || bare === '0:0:0:0:0:0:0:1';
}

/**
 * The default `authorize`: the client's address is loopback; when the adapter gave no address,
 * the request's URL names a loopback host (`localhost`, `127.0.0.1`, `[::1]`).
 */
export function loopbackOnly(request: Request): boolean {
  const address = clientAddressOf(request);
  if (address !== undefined) return isLoopbackAddress(address);
  const host = new URL(request.url).hostname.toLowerCase();
  const bare = host.replace(/^\[|\]$/g, '');
  return LOOPBACK_NAMES.includes(host) || (isIP(bare) !== 0 && isLoopbackAddress(bare));
}

/**
 * The Session a request to the console's `path` is about: the id in `/api/sessions/:id/…`, else
 * its `sessionId` query parameter.
 */
export function sessionOfRequest(path: string, url: URL): string | undefined {
  const match = /^\/api\/sessions\/([^/]+)\//.exec(path);
  if (match?.[1] !== undefined) {
    try {
      return decodeURIComponent(match[1]);
    } catch {
      return match[1];
    }
  }
  return url.searchParams.get('sessionId') ?? undefined;
}

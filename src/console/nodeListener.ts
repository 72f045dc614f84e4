// A thin adapter from Node's `http` to a Web-standard handler, so a Host mounts the console in
// its own Node server (or in Express, whose requests and responses are Node's) without another
// package. The request's URL is read from `originalUrl` when the framework set one (Express
// strips a mount path from `url`), so the console sees the path the client sent. The handler
// gets `{incoming, outgoing}` as its second argument: the console reads the client's address
// there (its default `authorize`) and cuts off a live stream's slow client at once. The body is
// written as it comes, waiting for the client to take each chunk; a client that goes away
// aborts the request's signal and cancels the body.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

/** A Web-standard handler, such as a console's `fetch`. */
export type WebHandler = (request: Request, env: { incoming: IncomingMessage; outgoing: ServerResponse }) => Promise<Response>;

/** A Node request listener: `http.createServer(listener)`, or an Express middleware. */
export type NodeRequestListener = (incoming: IncomingMessage, outgoing: ServerResponse) => Promise<void>;

function requestOf(incoming: IncomingMessage, signal: AbortSignal): Request {
  const path = (incoming as { originalUrl?: unknown }).originalUrl;
  const url = new URL(typeof path === 'string' ? path : (incoming.url ?? '/'), `http://${incoming.headers.host ?? 'localhost'}`);
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  const method = incoming.method ?? 'GET';
  const withBody = method !== 'GET' && method !== 'HEAD';
  return new Request(url, {
    method,
    headers,
    signal,
    ...(withBody ? { body: Readable.toWeb(incoming) as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
  } as RequestInit);
}

/** Resolves once `outgoing` can take more, or is closed. */
const drained = (outgoing: ServerResponse): Promise<void> =>
  new Promise((resolve) => {
    const done = () => {
      outgoing.off('drain', done);
      outgoing.off('close', done);
      resolve();
    };
    outgoing.once('drain', done);
    outgoing.once('close', done);
  });

/** The Node listener answering each request with `handler`. */
export function nodeListener(handler: WebHandler): NodeRequestListener {
  return async (incoming, outgoing) => {
    const aborted = new AbortController();
    outgoing.once('close', () => {
      if (!outgoing.writableFinished) aborted.abort();
    });
    let response: Response;
    try {
      response = await handler(requestOf(incoming, aborted.signal), { incoming, outgoing });
    } catch {
      response = Response.json({ code: 'invalid_request', message: 'The request could not be read.' }, { status: 400 });
    }
    if (outgoing.destroyed) return;
    outgoing.statusCode = response.status;
    for (const [name, value] of response.headers) if (name !== 'set-cookie') outgoing.setHeader(name, value);
    const cookies = response.headers.getSetCookie();
    if (cookies.length > 0) outgoing.setHeader('set-cookie', cookies);
    const body = response.body;
    if (body === null || incoming.method === 'HEAD') {
      await body?.cancel();
      outgoing.end();
      return;
    }
    // A stream's headers go out at once: the client learns it is connected before the first event.
    outgoing.flushHeaders();
    const reader = body.getReader();
    outgoing.once('close', () => void reader.cancel().catch(() => undefined));
    try {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        if (outgoing.destroyed) break;
        if (!outgoing.write(chunk.value)) await drained(outgoing);
      }
      outgoing.end();
    } catch {
      outgoing.destroy();
    }
  };
}

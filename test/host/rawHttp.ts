// Raw TCP connections to a Host, for what `fetch` cannot do: a client that stops reading, a
// body sent slowly or never finished, a request sent on a kept-alive connection at a chosen
// moment, a connection that is refused. Everything received is kept; `waitFor` reads until a
// condition holds and fails (rather than hanging) when the connection ends first.
import { connect as netConnect, type Socket } from 'node:net';

export interface RawConnection {
  readonly socket: Socket;
  /** Everything received so far, as UTF-8 text. */
  text(): string;
  /** How many bytes were received so far. */
  readonly bytes: number;
  /** Whether the other side ended or the connection was destroyed. */
  readonly ended: boolean;
  /** Resolves once `done(text)` holds; rejects when the connection ends first. */
  waitFor(done: (text: string) => boolean): Promise<string>;
  /** Resolves when the connection is gone (ended by the peer, reset or destroyed). */
  readonly closed: Promise<void>;
  write(text: string): void;
  /** Stops reading: what the Host sends stays in the kernel buffers until `resume`. */
  pause(): void;
  resume(): void;
  destroy(): void;
}

/** Opens a TCP connection to the Host at `url` (`http://host:port`). */
export function connectRaw(url: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port) });
    const chunks: Buffer[] = [];
    let bytes = 0;
    let ended = false;
    let cached: string | undefined;
    const waiters = new Set<() => void>();
    const notify = () => {
      for (const waiter of [...waiters]) waiter();
    };
    const closed = new Promise<void>((done) => {
      const finish = () => {
        ended = true;
        notify();
        done();
      };
      socket.once('end', finish);
      socket.once('close', finish);
    });
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      bytes += chunk.length;
      cached = undefined;
      notify();
    });
    socket.on('error', () => undefined);
    const text = () => {
      cached ??= Buffer.concat(chunks).toString('utf8');
      return cached;
    };
    const connection: RawConnection = {
      socket,
      text,
      get bytes() {
        return bytes;
      },
      get ended() {
        return ended;
      },
      waitFor(done) {
        return new Promise((found, failed) => {
          const check = () => {
            if (done(text())) {
              waiters.delete(check);
              found(text());
            } else if (ended) {
              waiters.delete(check);
              failed(new Error(`the connection ended first; received ${bytes} bytes: ${text().slice(0, 300)}`));
            }
          };
          waiters.add(check);
          check();
        });
      },
      closed,
      write: (data) => void socket.write(data),
      pause: () => void socket.pause(),
      resume: () => void socket.resume(),
      destroy: () => void socket.destroy(),
    };
    socket.once('connect', () => resolve(connection));
    socket.once('error', reject);
  });
}

/** The `Host` header value of `url`. */
export const hostHeader = (url: string): string => new URL(url).host;

/** A GET request for `path` as raw text (keep-alive). */
export const rawGet = (url: string, path: string, headers: Record<string, string> = {}): string =>
  `GET ${path} HTTP/1.1\r\nHost: ${hostHeader(url)}\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;

/** Opens `/api/events` (or `path`), waits for its `ready` event and stops reading. */
export async function stalledStream(url: string, path = '/api/events', opened = 'event: ready'): Promise<RawConnection> {
  const connection = await connectRaw(url);
  connection.write(rawGet(url, path));
  await connection.waitFor((text) => text.includes(opened));
  connection.pause();
  return connection;
}

/** The HTTP status of the first response in `text`, or undefined when none arrived. */
export const statusOf = (text: string): number | undefined => {
  const match = /^HTTP\/1\.1 (\d{3})/.exec(text);
  return match?.[1] === undefined ? undefined : Number(match[1]);
};

/** The JSON body of a complete single response in `text` (headers, a blank line, the body). */
export function jsonBodyOf(text: string): unknown {
  const start = text.indexOf('\r\n\r\n');
  const rest = text.slice(start + 4);
  const chunked = /^transfer-encoding: chunked/im.test(text.slice(0, start));
  return JSON.parse(chunked ? (rest.split('\r\n')[1] ?? '') : rest);
}

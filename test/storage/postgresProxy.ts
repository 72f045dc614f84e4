// A TCP proxy on loopback in front of the PostgreSQL server, for connection-loss tests: `stop()`
// cuts every connection through it and refuses new ones (the database is unreachable), `start()`
// accepts again on the same port.
import { createConnection, createServer, type Server, type Socket } from 'node:net';

/** A stoppable loopback proxy to `target`. */
export interface LoopbackProxy {
  readonly port: number;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts a proxy on a free loopback port forwarding to `host:port`. */
export async function startProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<LoopbackProxy> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const next = createServer((client) => {
        const upstream = createConnection({ host: targetHost, port: targetPort });
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => undefined);
        }
        client.pipe(upstream).pipe(client);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
      next.once('error', reject);
      next.listen(port, '127.0.0.1', () => {
        const address = next.address();
        if (address !== null && typeof address === 'object') port = address.port;
        server = next;
        resolve();
      });
    });
  await listen();
  return {
    get port() {
      return port;
    },
    start: listen,
    stop: async () => {
      const current = server;
      server = undefined;
      for (const s of sockets) s.destroy();
      if (current !== undefined) await new Promise<void>((resolve) => current.close(() => resolve()));
    },
  };
}

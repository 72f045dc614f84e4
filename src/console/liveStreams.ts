// Every live Server-Sent Events stream of the console (`/api/events`, `/api/inspect/events`) goes
// through here: at most `maxStreams` at once (one more is refused with 503 `too_many_streams`),
// none once shutdown began (503 `host_stopping`), each pumping its feed one message at a time —
// a message is written only after the client took the previous one, so what waits for a slow
// client stays in its feed's bounded backlog. A feed that falls behind its bound may disconnect
// its client: the connection is destroyed, which releases everything held for it. `close()`
// refuses new streams and ends every open one.
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { Logger } from '../index.ts';
import { sendFailure } from './failures.ts';
import { nodeBindings } from './nodeBindings.ts';
import type { StreamStats } from './options.ts';

/** One Server-Sent Event: its name and its data text. */
export interface StreamMessage {
  readonly event: string;
  readonly data: string;
}

/** What one stream sends, in order. */
export interface StreamFeed {
  /** The next message, waiting while there is none; undefined once the feed is closed. */
  next(): Promise<StreamMessage | undefined>;
  /** Stops the feed: a waiting `next()` resolves with undefined. */
  close(): void;
  /** Bytes of the messages waiting for the client. */
  readonly backlogBytes: number;
}

export interface LiveStreams {
  /**
   * Answers a stream of the feed `openFeed` makes (it is given the function that disconnects
   * this client), or a 503 when the Host is at its cap or shutting down.
   */
  open(c: Context, openFeed: (disconnect: () => void) => StreamFeed): Response;
  /** Refuses streams from now on and ends every open one. */
  close(): void;
  stats(): StreamStats;
}

/** How often an idle stream sends a comment line, so proxies and idle timeouts leave it open. */
export const KEEPALIVE_MS = 25_000;

export interface LiveStreamsOptions {
  readonly maxStreams: number;
  readonly logger: Logger;
}

interface OpenStream {
  feed: StreamFeed | undefined;
  disconnect(): void;
}

/** The Host's registry of live streams. */
export function createLiveStreams(options: LiveStreamsOptions): LiveStreams {
  const open = new Set<OpenStream>();
  let closing = false;

  return {
    open(c, openFeed) {
      if (closing) {
        c.header('connection', 'close');
        return sendFailure(c, 'host_stopping', 'The Host is shutting down; reconnect once it is back.');
      }
      if (open.size >= options.maxStreams)
        return sendFailure(
          c,
          'too_many_streams',
          `The Host serves at most ${options.maxStreams} live streams at once; close another one or try again later.`,
        );
      const { outgoing } = nodeBindings(c);
      let abort: (() => void) | undefined;
      const entry: OpenStream = {
        feed: undefined,
        disconnect() {
          if (!open.delete(entry)) return;
          entry.feed?.close();
          options.logger.warn(`A live-stream client of ${c.req.path} fell behind and was disconnected.`);
          // Destroying the connection drops what Node and the stream still buffer for it.
          if (outgoing !== undefined) outgoing.destroy();
          else abort?.();
        },
      };
      const feed = openFeed(() => entry.disconnect());
      entry.feed = feed;
      open.add(entry);
      return streamSSE(c, async (stream) => {
        abort = () => stream.abort();
        stream.onAbort(() => feed.close());
        let writing = false;
        const keepalive = setInterval(() => {
          if (!writing) void stream.write(': keepalive\n\n');
        }, KEEPALIVE_MS);
        keepalive.unref();
        try {
          for (let message = await feed.next(); message !== undefined && !stream.aborted; message = await feed.next()) {
            writing = true;
            await stream.writeSSE(message);
            writing = false;
          }
        } finally {
          clearInterval(keepalive);
          feed.close();
          open.delete(entry);
        }
      });
    },
    close() {
      closing = true;
      for (const entry of [...open]) entry.feed?.close();
    },
    stats() {
      let backlogBytes = 0;
      for (const entry of open) backlogBytes += entry.feed?.backlogBytes ?? 0;
      return { streams: open.size, backlogBytes };
    },
  };
}

// The Host's feed to the Stately Inspector: the actor system's inspection events, converted by
// @statelyai/inspect's `createInspector` (the events its `createWebSocketInspector` sends), go as
// one JSON text message each to a WebSocket server — the package's relay, `createInspectorServer`
// from @statelyai/inspect/server, which shows them in the Stately Inspector in a browser. The
// Host owns the socket instead of using the package's own, so that its lifecycle is the Host's:
// until the socket opens (and while it reconnects after a refused or lost connection, every
// `retryMs`) the latest `maxPending` events wait, and `close()` ends the feed for good — the
// events already converted are sent, the socket is closed, no reconnect or timer is left.
import { createInspector, type StatelyInspectionEvent } from '@statelyai/inspect';
import WebSocket from 'ws';
import type { InspectionEvent } from 'xstate';
import type { ScheduleInspectionEvent } from '../src/index.ts';

/** How many events wait for the socket by default; older ones are dropped first. */
export const STATELY_MAX_PENDING = 1_000;
/** How long the feed waits before it connects again by default. */
export const STATELY_RETRY_MS = 2_000;
/** How deep a snapshot, context or event is serialized (the package's own default). */
const DEPTH_LIMIT = 10;
/** How long `close()` waits for the server to acknowledge the close before dropping the socket. */
const CLOSE_WAIT_MS = 1_000;

export interface StatelyFeedOptions {
  /** The WebSocket server, `ws://host:port` or `wss://…`. */
  readonly url: string;
  readonly maxPending?: number;
  readonly retryMs?: number;
  /** Told when a connection fails or is lost, once until the feed is connected again. */
  readonly onDisconnect?: (reason: string) => void;
}

export interface StatelyFeed {
  /** An inspection observer: pass `(event) => feed.inspect(event)` along with any other. */
  inspect(event: ScheduleInspectionEvent): void;
  /** Whether the socket is open right now. */
  connected(): boolean;
  /** Sends what was already converted, closes the socket and stops reconnecting. */
  close(): Promise<void>;
}

/** `JSON.stringify` that cuts cycles and deep values, and names functions, as the package does. */
export function inspectionJson(value: unknown, depthLimit = DEPTH_LIMIT): string {
  const ancestors: object[] = [];
  return JSON.stringify(value, function replace(this: unknown, _key: string, member: unknown): unknown {
    if (typeof member === 'function') return { type: member.name };
    if (typeof member === 'bigint') return member.toString();
    if (member === null || typeof member !== 'object') return member;
    while (ancestors.length > 0 && ancestors[ancestors.length - 1] !== this) ancestors.pop();
    if (ancestors.includes(member)) return '[Circular]';
    if (ancestors.length >= depthLimit) return Array.isArray(member) ? '[Array]' : '[Object]';
    ancestors.push(member);
    return member;
  });
}

/** Starts connecting to `options.url` at once. */
export function createStatelyFeed(options: StatelyFeedOptions): StatelyFeed {
  const maxPending = options.maxPending ?? STATELY_MAX_PENDING;
  const retryMs = options.retryMs ?? STATELY_RETRY_MS;
  const pending: string[] = [];
  let socket: WebSocket | undefined;
  let retry: NodeJS.Timeout | undefined;
  let closed = false;
  let told = false;

  const send = (event: StatelyInspectionEvent): void => {
    if (closed) return;
    const text = inspectionJson(event);
    if (socket?.readyState === WebSocket.OPEN) {
      socket.send(text);
      return;
    }
    pending.push(text);
    if (pending.length > maxPending) pending.shift();
  };

  const connect = (): void => {
    retry = undefined;
    if (closed) return;
    const ws = new WebSocket(options.url);
    socket = ws;
    ws.on('open', () => {
      told = false;
      for (const text of pending.splice(0)) ws.send(text);
    });
    // A relay sends what it buffered to every client that connects; the feed only sends.
    ws.on('message', () => undefined);
    ws.on('error', (error) => {
      if (told || closed) return;
      told = true;
      options.onDisconnect?.(error.message);
    });
    ws.on('close', () => {
      if (socket === ws) socket = undefined;
      if (closed) return;
      if (!told) {
        told = true;
        options.onDisconnect?.('the connection was closed');
      }
      retry = setTimeout(connect, retryMs);
      retry.unref();
    });
  };

  const stately = createInspector({ send });
  connect();

  return {
    inspect(event) {
      if (!closed) stately.inspect.next?.(event as InspectionEvent);
    },
    connected: () => socket?.readyState === WebSocket.OPEN,
    async close() {
      if (closed) return;
      // The package converts each event on a zero-delay timer: let those already queued run.
      await new Promise((resolve) => setTimeout(resolve, 0));
      closed = true;
      pending.length = 0;
      if (retry !== undefined) clearTimeout(retry);
      const ws = socket;
      if (ws === undefined || ws.readyState === WebSocket.CLOSED) return;
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => ws.terminate(), CLOSE_WAIT_MS);
        ws.once('close', () => {
          clearTimeout(force);
          resolve();
        });
        ws.close();
      });
    },
  };
}

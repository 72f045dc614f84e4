// A WebSocket server on a free loopback port that stands where the Stately Inspector's relay
// would: it decodes each text message as one inspection event (the wire form of
// @statelyai/inspect's WebSocket inspector) and keeps them in arrival order, so tests can wait
// for the events they expect and read what a task actor went through.
import type { AddressInfo } from 'node:net';
import type { StatelyActorEvent, StatelyInspectionEvent, StatelySnapshotEvent } from '@statelyai/inspect';
import { WebSocketServer } from 'ws';

export interface StatelyServer {
  /** `ws://127.0.0.1:<port>`. */
  readonly url: string;
  readonly port: number;
  /** Every event received, in order. */
  readonly events: StatelyInspectionEvent[];
  /** Messages that were not one JSON inspection event (binary frames, arrays, other JSON). */
  readonly malformed: string[];
  /** Connections accepted so far, and those still open. */
  connections(): { readonly accepted: number; readonly open: number };
  /** Polls (every 10 ms, for at most `timeoutMs`) until `ready` holds; rejects naming `what`. */
  waitFor(what: string, ready: () => boolean, timeoutMs?: number): Promise<void>;
  /** The registration of the actor with this name (its id). */
  actor(name: string): StatelyActorEvent | undefined;
  /** The snapshot events of one actor, by its session id. */
  snapshots(sessionId: string): StatelySnapshotEvent[];
  /** Drops the open connections and keeps listening. */
  drop(): void;
  /** Drops open connections and stops listening. */
  close(): Promise<void>;
}

const isEvent = (value: unknown): value is StatelyInspectionEvent =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  typeof (value as { type?: unknown }).type === 'string' &&
  typeof (value as { _version?: unknown })._version === 'string' &&
  typeof (value as { sessionId?: unknown }).sessionId === 'string';

export async function startStatelyServer(): Promise<StatelyServer> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const events: StatelyInspectionEvent[] = [];
  const malformed: string[] = [];
  let accepted = 0;
  server.on('connection', (socket) => {
    accepted += 1;
    socket.on('message', (data, isBinary) => {
      const text = data.toString();
      let decoded: unknown;
      try {
        decoded = isBinary ? undefined : JSON.parse(text);
      } catch {
        decoded = undefined;
      }
      if (isEvent(decoded)) events.push(decoded);
      else malformed.push(text.slice(0, 200));
    });
  });
  return {
    url: `ws://127.0.0.1:${port}`,
    port,
    events,
    malformed,
    connections: () => ({ accepted, open: server.clients.size }),
    async waitFor(what, ready, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      while (!ready()) {
        if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    actor: (name) => events.find((e): e is StatelyActorEvent => e.type === '@xstate.actor' && e.name === name),
    snapshots: (sessionId) => events.filter((e): e is StatelySnapshotEvent => e.type === '@xstate.snapshot' && e.sessionId === sessionId),
    drop() {
      for (const client of server.clients) client.terminate();
    },
    async close() {
      for (const client of server.clients) client.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The distinct states a snapshot sequence went through, with the status of the last. */
export function stateTrail(snapshots: readonly StatelySnapshotEvent[]): { readonly states: unknown[]; readonly status: unknown } {
  const states: unknown[] = [];
  for (const { snapshot } of snapshots) {
    const value = (snapshot as { value?: unknown }).value;
    if (states.length === 0 || JSON.stringify(states[states.length - 1]) !== JSON.stringify(value)) states.push(value);
  }
  return { states, status: (snapshots[snapshots.length - 1]?.snapshot as { status?: unknown } | undefined)?.status };
}

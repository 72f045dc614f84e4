// The Session ids `GET /api/sessions` answers: every Session with tasks or a transcript, kept in
// memory so that listing or searching them does not read the whole catalog per request (at
// 100,000 tasks that read is a long turn of the service's mailbox). The set is built from the
// catalog and the Host's transcripts (when it gave them) on first use, grows with every change the service announces
// and every transcript append, and is rebuilt when it is older than `maxAgeMs` (so a Session
// whose last task was deleted leaves the list within that time).
import type { ConsoleService, ConsoleTranscripts } from './options.ts';

/** How many ids a prefix search answers when the request names no `limit`. */
export const DEFAULT_SESSION_SEARCH_LIMIT = 20;
/** The most ids a prefix search answers. */
export const MAX_SESSION_SEARCH_LIMIT = 200;

export interface SessionIndex {
  /** Every known Session id, sorted. */
  all(): Promise<readonly string[]>;
  /** The first `limit` ids (sorted) that start with `prefix`, case-insensitively. */
  search(prefix: string, limit: number): Promise<string[]>;
  /** Stops listening to the service and the transcripts. */
  close(): void;
}

/** An index over `service`'s catalog and the `transcripts`. */
export function createSessionIndex(
  service: Pick<ConsoleService, 'subscribe' | 'remote'>,
  transcripts: ConsoleTranscripts | undefined,
  { maxAgeMs = 300_000, now = () => Date.now() } = {},
): SessionIndex {
  let ids: Set<string> | undefined;
  let sorted: string[] | undefined;
  let builtAt = 0;
  let building: Promise<void> | undefined;
  // Ids announced while a build reads the catalog, which that read may have missed.
  let announced: Set<string> | undefined;
  let subscribed = false;
  const offs: Array<() => void> = [];

  const add = (id: string): void => {
    announced?.add(id);
    if (ids === undefined || ids.has(id)) return;
    ids.add(id);
    sorted = undefined;
  };
  function subscribe(): void {
    if (subscribed) return;
    subscribed = true;
    offs.push(service.subscribe(({ sessionId }) => add(sessionId)));
    const offTranscripts = transcripts?.subscribe?.(({ sessionId }) => add(sessionId));
    if (offTranscripts !== undefined) offs.push(offTranscripts);
  }
  async function build(): Promise<void> {
    subscribe();
    const seen = new Set<string>();
    announced = seen;
    try {
      const [files, catalog] = await Promise.all([transcripts?.list?.() ?? [], service.remote.catalog()]);
      const next = new Set(files);
      for (const entry of catalog) next.add(entry.sessionId);
      for (const id of seen) next.add(id);
      ids = next;
      sorted = undefined;
      builtAt = now();
    } finally {
      announced = undefined;
    }
  }
  async function current(): Promise<string[]> {
    if (ids === undefined || now() - builtAt > maxAgeMs) {
      building ??= build().finally(() => {
        building = undefined;
      });
      await building;
    }
    sorted ??= [...(ids ?? [])].sort();
    return sorted;
  }
  return {
    all: current,
    async search(prefix, limit) {
      const wanted = prefix.toLowerCase();
      const found: string[] = [];
      for (const id of await current()) {
        if (!id.toLowerCase().startsWith(wanted)) continue;
        found.push(id);
        if (found.length >= limit) break;
      }
      return found;
    },
    close() {
      for (const off of offs.splice(0)) off();
    },
  };
}

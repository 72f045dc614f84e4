// The order a cluster member keeps between the calls it is handed (SPEC §5: calls are processed in
// the order they are made). A call runs once every earlier call it could observe or be observed by
// has settled: the earlier calls naming the same Session, and every earlier call when either of
// the two names no Session (a catalog, a drift report, counts, a bulk or re-anchor across
// Sessions). Calls for different Sessions touch disjoint tasks, so they run concurrently — each at
// its Session's owner — and a caller still sees every effect of what it sent before.
import type { ScheduleCall } from '../../machines/replies.ts';

/** The Session a call is confined to, or undefined for a call across Sessions. */
export function callSession(call: ScheduleCall): string | undefined {
  if (call.kind !== 'remote') return call.sessionId;
  if (call.method === 'bulk' || call.method === 'counts' || call.method === 'catalog' || call.method === 'drift') return undefined;
  const sessionId = (call.request as { readonly sessionId?: unknown } | null | undefined)?.sessionId;
  return typeof sessionId === 'string' ? sessionId : undefined;
}

export class CallOrder {
  /** The last call handed in for each Session, settled or not. */
  private readonly lastOf = new Map<string, Promise<unknown>>();
  /** Every call handed in since the last call across Sessions (and that call). */
  private sinceWide = new Set<Promise<unknown>>();
  private lastWide: Promise<unknown> = Promise.resolve();

  /** Runs `work` for `call` once the earlier calls it depends on have settled (whatever their outcome). */
  run<T>(call: ScheduleCall, work: () => Promise<T>): Promise<T> {
    const sessionId = callSession(call);
    const before = sessionId === undefined ? [...this.sinceWide, this.lastWide] : [this.lastWide, this.lastOf.get(sessionId)];
    const settled = (promise: Promise<unknown> | undefined) => promise?.then(ignore, ignore);
    const result = Promise.all(before.map(settled)).then(work);
    if (sessionId === undefined) {
      this.lastWide = result;
      this.sinceWide = new Set();
      this.lastOf.clear();
    } else {
      this.lastOf.set(sessionId, result);
      this.sinceWide.add(result);
      // Forget a Session's entry once its last call settled, so the map holds only calls in flight.
      void result.then(ignore, ignore).then(() => {
        if (this.lastOf.get(sessionId) === result) this.lastOf.delete(sessionId);
        this.sinceWide.delete(result);
      });
    }
    return result;
  }
}

const ignore = (): void => undefined;

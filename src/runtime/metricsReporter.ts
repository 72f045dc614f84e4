// The scheduler's side of the metrics port (docs/operations.md): every member of the Host's
// `ScheduleMetrics` is called through here, so a member the Host left out costs nothing and one
// that throws never reaches a delivery. The first throw is logged (with the member's name); the
// rest are dropped, since a broken metrics sink would otherwise log on every delivery.
import type { FailureStage } from '../domain/tasks/types.ts';
import type { Logger, ScheduleLevels, ScheduleMetrics } from '../ports.ts';

/** What the scheduler reports; each call is safe to make on the delivery path. */
export interface MetricsReporter {
  delivered(latenessSeconds: number): void;
  attemptFailed(stage: FailureStage, reminders: number): void;
  storageCommitted(seconds: number, ok: boolean): void;
  shardsHeld(count: number): void;
  /** Registers a reader of levels; answers the function that ends the registration (idempotent). */
  observe(read: () => ScheduleLevels): () => void;
}

const nothing = (): void => undefined;

/** The reporter of a scheduler without metrics. */
export const NO_METRICS: MetricsReporter = {
  delivered: nothing,
  attemptFailed: nothing,
  storageCommitted: nothing,
  shardsHeld: nothing,
  observe: () => nothing,
};

const reporters = new WeakMap<ScheduleMetrics, MetricsReporter>();

/**
 * The reporter over the Host's `metrics` (none: {@link NO_METRICS}). A reporter given again is
 * answered as it is, so a cluster wraps the Host's port once and its shard services share it.
 */
export function metricsReporter(metrics: ScheduleMetrics | undefined, logger: Logger): MetricsReporter {
  if (metrics === undefined) return NO_METRICS;
  const known = reporters.get(metrics);
  if (known !== undefined) return known;
  let warned = false;
  const failed = (member: string, error: unknown): void => {
    if (warned) return;
    warned = true;
    logger.error(`The metrics port's ${member}() threw; its failures are ignored from now on (this is logged once).`, { cause: error });
  };
  // Fixed arities rather than rest parameters: nothing is allocated per call on the delivery path.
  const guard1 = <A>(member: string, call: ((a: A) => void) | undefined): ((a: A) => void) =>
    call === undefined
      ? nothing
      : (a) => {
          try {
            call.call(metrics, a);
          } catch (error) {
            failed(member, error);
          }
        };
  const guard2 = <A, B>(member: string, call: ((a: A, b: B) => void) | undefined): ((a: A, b: B) => void) =>
    call === undefined
      ? nothing
      : (a, b) => {
          try {
            call.call(metrics, a, b);
          } catch (error) {
            failed(member, error);
          }
        };
  const reporter: MetricsReporter = {
    delivered: guard1('delivered', metrics.delivered),
    attemptFailed: guard2('attemptFailed', metrics.attemptFailed),
    storageCommitted: guard2('storageCommitted', metrics.storageCommitted),
    shardsHeld: guard1('shardsHeld', metrics.shardsHeld),
    observe(read) {
      if (metrics.observe === undefined) return nothing;
      let stop: unknown;
      try {
        stop = metrics.observe(read);
      } catch (error) {
        failed('observe', error);
        return nothing;
      }
      // Ended once, however often it is called; a throw on the way out is logged like any other.
      let end = typeof stop === 'function' ? (stop as () => void) : undefined;
      return () => {
        const ending = end;
        end = undefined;
        try {
          ending?.();
        } catch (error) {
          failed('observe', error);
        }
      };
    },
  };
  reporters.set(metrics, reporter);
  reporters.set(reporter, reporter);
  return reporter;
}

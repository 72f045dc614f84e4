// The periodic delivery summary (docs/delivery.md): committed deliveries and failed attempts are
// counted, with each delivery's lateness, and logged as one info line once the interval since the
// last summary has passed. It is checked only when a delivery or a failure is recorded, so an idle
// scheduler is never woken for it; whatever is still counted is flushed when the service closes.
import { nearestRankQuantile } from '../domain/reads/quantile.ts';
import type { Clock, Logger } from '../ports.ts';

/** What one summary line carries. */
export interface DeliverySummaryData {
  readonly delivered: number;
  readonly failedAttempts: number;
  /** Lateness (delivered − occurrence) of the deliveries counted, or null with none. */
  readonly latenessP50Ms: number | null;
  readonly latenessP99Ms: number | null;
  /** The span of the clock this summary covers. */
  readonly periodMs: number;
}

export const DELIVERY_SUMMARY_MESSAGE = 'Reminder deliveries since the last summary.';

export class DeliverySummary {
  private lateness: number[] = [];
  private failedAttempts = 0;
  private since: number;

  constructor(
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly intervalMs: number,
  ) {
    this.since = clock.now();
  }

  /** A delivery was committed. */
  delivered(occurrence: number, deliveredAt: number): void {
    this.lateness.push(deliveredAt - occurrence);
    this.emitIfDue();
  }

  /** Attempts failed (each already logged at warn). */
  failed(attempts: number): void {
    if (attempts <= 0) return;
    this.failedAttempts += attempts;
    this.emitIfDue();
  }

  /** Logs what is counted, if anything, whether or not the interval has passed. */
  flush(): void {
    if (this.lateness.length === 0 && this.failedAttempts === 0) return;
    const now = this.clock.now();
    const sorted = this.lateness.sort((a, b) => a - b);
    const data: DeliverySummaryData = {
      delivered: sorted.length,
      failedAttempts: this.failedAttempts,
      latenessP50Ms: nearestRankQuantile(sorted, 0.5) ?? null,
      latenessP99Ms: nearestRankQuantile(sorted, 0.99) ?? null,
      periodMs: Math.max(0, now - this.since),
    };
    this.lateness = [];
    this.failedAttempts = 0;
    this.since = now;
    this.logger.info?.(DELIVERY_SUMMARY_MESSAGE, data);
  }

  private emitIfDue(): void {
    const now = this.clock.now();
    // A clock set backwards restarts the interval rather than holding the summary back until it catches up.
    if (now < this.since) this.since = now;
    if (now - this.since >= this.intervalMs) this.flush();
  }
}

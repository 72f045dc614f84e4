// What fresh memory costs on this machine. When the heap grows, the kernel maps each new page on
// its first touch (a minor page fault); on a virtual machine that can cost far more than it costs
// on bare hardware, and a benchmark whose heap grows pays it while a loop over one actor does not.
// The benchmarks count the faults of what they measure and price one fault beside them.

/** The minor page faults this process has taken so far. */
export const minorFaults = (): number => process.resourceUsage().minorPageFault;

/** Bytes touched to price one fault: enough pages to average over, little enough to take a moment. */
const PROBE_BYTES = 64 * 2 ** 20;
const PAGE = 4096;

/**
 * The time one minor page fault takes here, in µs: a fresh buffer outside the JavaScript heap is
 * written once per page, and the time is divided by the faults the writes took. The least of
 * `runs` probes.
 */
export function faultCostUs(runs = 3): number {
  let least = Number.POSITIVE_INFINITY;
  for (let r = 0; r < runs; r++) {
    // allocUnsafeSlow leaves the pages unwritten, so each first write below maps one.
    const buffer = Buffer.allocUnsafeSlow(PROBE_BYTES);
    const before = minorFaults();
    const t0 = performance.now();
    for (let i = 0; i < buffer.length; i += PAGE) buffer[i] = 1;
    const ms = performance.now() - t0;
    const faults = minorFaults() - before;
    if (faults > 0) least = Math.min(least, (ms * 1000) / faults);
  }
  return least;
}

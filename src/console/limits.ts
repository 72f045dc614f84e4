// The console's limits on what clients may hold through it: live streams and their backlogs, how
// long a request's body may take and how large it may be. The Node server's own limits
// (connections, header and idle timeouts) belong to whoever runs the server.

/** What the console lets its clients hold. */
export interface ConsoleLimits {
  /**
   * Live Server-Sent Events streams at once, `/api/events` and `/api/inspect/events` together; a
   * stream past the cap is refused with 503 `too_many_streams` (default 64).
   */
  readonly maxStreams: number;
  /**
   * Bytes of messages that may wait for one stream's client (default 4 MiB). An `/api/events`
   * client further behind is disconnected (a browser reconnects and reloads); an inspector
   * client is sent a fresh snapshot instead of the missed updates.
   */
  readonly streamBacklogBytes: number;
  /** Time for a handler to read a request's body (default 10 s); then 408 `request_timeout`. */
  readonly bodyTimeoutMs: number;
  /** Largest accepted request body (default 64 KiB); a larger one is refused with 413 `body_too_large`. */
  readonly maxBodyBytes: number;
}

/** The limits a console has unless told otherwise. */
export const DEFAULT_CONSOLE_LIMITS: ConsoleLimits = {
  maxStreams: 64,
  streamBacklogBytes: 4 * 1024 * 1024,
  bodyTimeoutMs: 10_000,
  maxBodyBytes: 64 * 1024,
};

/** The defaults with `overrides` applied; throws a RangeError naming a limit that is not a positive whole number. */
export function consoleLimits(overrides: Partial<ConsoleLimits> = {}): ConsoleLimits {
  const limits: ConsoleLimits = { ...DEFAULT_CONSOLE_LIMITS };
  for (const name of Object.keys(DEFAULT_CONSOLE_LIMITS) as (keyof ConsoleLimits)[]) {
    const value = overrides[name] ?? DEFAULT_CONSOLE_LIMITS[name];
    if (!Number.isSafeInteger(value) || value <= 0)
      throw new RangeError(`The console limit ${name} must be a positive whole number; got ${String(value)}.`);
    (limits as { -readonly [K in keyof ConsoleLimits]: number })[name] = value;
  }
  return limits;
}

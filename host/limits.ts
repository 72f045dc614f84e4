// The reference Host's limits on what clients may hold: connections, live streams and their
// backlogs, how long a request's headers and body may take, how long an idle connection stays,
// and how long shutdown waits for open connections before closing them. Each has a documented
// default; `createHost({ limits })` overrides any of them, and `npm start` reads some from the
// environment (host/env.ts). The console's own limits (streams, backlogs, bodies) are among them.
import { type ConsoleLimits, DEFAULT_CONSOLE_LIMITS } from '../src/console/index.ts';

/** What the Host lets its clients hold, and for how long. */
export interface HostLimits extends ConsoleLimits {
  /** Open TCP connections at once; a connection past the cap is closed as it arrives (default 256). */
  readonly maxConnections: number;
  /** Time to receive a request's headers (default 10 s); then 408 and the connection is closed. */
  readonly headersTimeoutMs: number;
  /** Time to receive a whole request, headers and body (default 30 s); then 408 and the connection is closed. */
  readonly requestTimeoutMs: number;
  /** How long a kept-alive connection may wait idle for its next request (default 5 s). */
  readonly keepAliveTimeoutMs: number;
  /**
   * How long a connection may send and receive nothing while a request is open (default 120 s;
   * live streams send a keep-alive comment every 25 s, so only a reader that stopped reading
   * reaches it). The connection is then closed.
   */
  readonly idleTimeoutMs: number;
  /**
   * How long shutdown waits for open connections (streams are ended at once, requests in
   * progress may finish) before it closes them (default 3 s).
   */
  readonly shutdownGraceMs: number;
}

/** The limits a Host has unless told otherwise. */
export const DEFAULT_HOST_LIMITS: HostLimits = {
  ...DEFAULT_CONSOLE_LIMITS,
  maxConnections: 256,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  idleTimeoutMs: 120_000,
  shutdownGraceMs: 3_000,
};

/**
 * The defaults with `overrides` applied; throws a RangeError naming a limit that is not a
 * positive whole number, or headers allowed longer than the whole request. Without an explicit
 * headers timeout, a shorter request timeout shortens it too.
 */
export function hostLimits(overrides: Partial<HostLimits> = {}): HostLimits {
  const limits: HostLimits = {
    ...DEFAULT_HOST_LIMITS,
    ...overrides,
    headersTimeoutMs:
      overrides.headersTimeoutMs ??
      Math.min(DEFAULT_HOST_LIMITS.headersTimeoutMs, overrides.requestTimeoutMs ?? DEFAULT_HOST_LIMITS.requestTimeoutMs),
  };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || (value as number) <= 0)
      throw new RangeError(`The Host limit ${name} must be a positive whole number; got ${String(value)}.`);
  }
  if (limits.headersTimeoutMs > limits.requestTimeoutMs)
    throw new RangeError(
      `The Host limit headersTimeoutMs (${limits.headersTimeoutMs}) must not exceed requestTimeoutMs (${limits.requestTimeoutMs}).`,
    );
  return limits;
}

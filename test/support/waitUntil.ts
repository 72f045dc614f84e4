// Waiting for what a test expects to happen — a gate reached, an actor in a state, a write held —
// rather than for a fixed number of event-loop turns, which breaks silently when the code under
// test takes one hop more. The condition is checked after every macrotask turn (promise chains,
// timers and I/O get to run in between) until it holds, or until the deadline, where the wait
// fails naming what it waited for.

const DEFAULT_DEADLINE_MS = 10_000;

/**
 * Resolves once `condition()` holds; rejects after `deadlineMs` naming `what`. A condition that
 * reads through the service (a remote call) may answer with a promise.
 */
export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  what: string,
  deadlineMs = DEFAULT_DEADLINE_MS,
): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`waited ${deadlineMs} ms for ${what}, and it never happened`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

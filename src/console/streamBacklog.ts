// The bounded queue between the Host and one live-stream client, shared by `/api/events` and
// the inspector stream: messages wait here until the client has taken the previous one, and a
// push that would pass the bound (a number of messages or of bytes) is refused, so a reader that
// stops reading costs at most the bound. What a refusal means is the stream's choice: the event
// stream disconnects the client, the inspector feed drops the queue and sends a fresh snapshot.

/** How much may wait for one client. */
export interface BacklogLimits {
  readonly maxMessages: number;
  readonly maxBytes: number;
}

export interface StreamBacklog<T> {
  /**
   * Queues `item` of `bytes` bytes and wakes a waiting reader; answers false, queueing nothing,
   * when that would pass a limit or the backlog is closed. An empty backlog always takes one
   * item, however large, so one big message never counts as falling behind.
   */
  push(item: T, bytes: number): boolean;
  /** The oldest item, waiting for one while none waits; undefined once the backlog is closed. */
  next(): Promise<T | undefined>;
  /** Drops every waiting item. */
  clear(): void;
  /** Drops every waiting item, refuses later pushes and wakes a waiting reader. */
  close(): void;
  readonly length: number;
  /** Bytes of the waiting items. */
  readonly bytes: number;
  readonly closed: boolean;
}

/** An empty backlog bounded by `limits`. */
export function createStreamBacklog<T>(limits: BacklogLimits): StreamBacklog<T> {
  const items: Array<{ readonly item: T; readonly bytes: number }> = [];
  let bytes = 0;
  let closed = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  const clear = () => {
    items.length = 0;
    bytes = 0;
  };

  return {
    push(item, size) {
      if (closed) return false;
      if (items.length > 0 && (items.length + 1 > limits.maxMessages || bytes + size > limits.maxBytes)) return false;
      items.push({ item, bytes: size });
      bytes += size;
      notify();
      return true;
    },
    async next() {
      for (;;) {
        const entry = items.shift();
        if (entry !== undefined) {
          bytes -= entry.bytes;
          return entry.item;
        }
        if (closed) return undefined;
        await new Promise<void>((resolve) => {
          const previous = wake;
          wake = () => {
            previous?.();
            resolve();
          };
        });
      }
    },
    clear,
    close() {
      closed = true;
      clear();
      notify();
    },
    get length() {
      return items.length;
    },
    get bytes() {
      return bytes;
    },
    get closed() {
      return closed;
    },
  };
}

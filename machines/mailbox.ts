// The supervisor's mailbox: an immutable FIFO queue, so the machine's context is never mutated
// and a burst of calls costs time linear in its size (copying an array on every arrival would make
// a burst of n calls cost O(n²)). Arrivals are consed onto `back` in O(1); the head is read from
// `front`, an array that is never changed and is consumed by moving `start`; when `front` runs out,
// `back` is reversed into a new `front`, so every command is copied at most once.

interface Cons<T> {
  readonly value: T;
  readonly next: Cons<T> | null;
}

export interface Mailbox<T> {
  /** The oldest commands; those before `start` are already taken. */
  readonly front: readonly T[];
  readonly start: number;
  /** The newer commands, newest first. */
  readonly back: Cons<T> | null;
  readonly size: number;
}

export const emptyMailbox = <T>(): Mailbox<T> => ({ front: [], start: 0, back: null, size: 0 });

/** The mailbox with `value` added last. */
export function mailboxPush<T>(box: Mailbox<T>, value: T): Mailbox<T> {
  if (box.size === 0) return { front: [value], start: 0, back: null, size: 1 };
  return { front: box.front, start: box.start, back: { value, next: box.back }, size: box.size + 1 };
}

/** `back` oldest first. */
function backToArray<T>(back: Cons<T> | null): T[] {
  const out: T[] = [];
  for (let cell = back; cell !== null; cell = cell.next) out.push(cell.value);
  return out.reverse();
}

/** The commands in arrival order (the newer part is laid out only if the walk reaches it). */
export function* mailboxItems<T>(box: Mailbox<T>): Generator<T> {
  for (let i = box.start; i < box.front.length; i++) yield box.front[i] as T;
  if (box.back !== null) yield* backToArray(box.back);
}

/** The first `count` commands (fewer when the mailbox holds fewer). */
export function mailboxHead<T>(box: Mailbox<T>, count: number): T[] {
  const out: T[] = [];
  if (count <= 0) return out;
  for (const item of mailboxItems(box)) {
    out.push(item);
    if (out.length === count) break;
  }
  return out;
}

/** The mailbox without its first `count` commands. */
export function mailboxDrop<T>(box: Mailbox<T>, count: number): Mailbox<T> {
  const n = Math.min(Math.max(count, 0), box.size);
  if (n === box.size) return emptyMailbox();
  const start = box.start + n;
  if (start < box.front.length) return { front: box.front, start, back: box.back, size: box.size - n };
  // `front` is used up: the rest of the commands are in `back`.
  const rest = backToArray(box.back);
  return { front: rest, start: start - box.front.length, back: null, size: box.size - n };
}

// How a Session answers a followup from the idempotency keys it already holds, whatever keeps
// its transcript. A redelivery (every key held by one message) is dropped and answered with the
// id of that message; a batch that repeats some reminders next to reminders due since is appended
// with the new ones only (the scheduler's receipts of the repeated ones then name the message
// holding them); one whose reminders are all held, but by several messages, is answered with a
// new id recorded as a short note. Anything else is appended as it came.
import type { FollowupMessage, FollowupMeta } from '../../src/index.ts';
import { keepReminders } from './reminderBatch.ts';
import type { TranscriptLine } from './transcript.ts';

/** A message waiting in a Session's inbox: a transcript line before the flush that stamps its time. */
export type InboxLine = Omit<TranscriptLine, 'at'>;

/** What a followup is answered with, and the line it adds to the inbox (none for a redelivery). */
export interface FollowupAnswer {
  readonly messageId: string;
  readonly line?: InboxLine;
}

/** What a live Session keeps in memory for its followups, alike in every store. */
export interface SessionInbox {
  readonly id: string;
  /** The number of the next new message. */
  nextNumber: number;
  /** Idempotency key → id of the stored message holding it. */
  readonly delivered: ReadonlyMap<string, string>;
  /** The messages no flush has taken yet. */
  inbox: InboxLine[];
  /** Set by a failed flush: this copy lost its inbox and takes no more followups. */
  broken: boolean;
}

const MESSAGE_ID = /^msg-(\d+)$/;

/** The id of the message numbered `number`. */
export const messageIdOf = (number: number): string => `msg-${number}`;

/** The number of a `msg-<n>` id; 0 for any other id (the demo agent's answers, say). */
export const messageNumber = (messageId: string): number => Number(MESSAGE_ID.exec(messageId)?.[1] ?? 0);

/** Idempotency key → id of the line carrying it, over `lines` in order (a later line wins). */
export const keyHolders = (lines: Iterable<InboxLine>): Map<string, string> =>
  new Map([...lines].flatMap((line) => (line.idempotencyKeys ?? []).map((key) => [key, line.messageId] as const)));

/**
 * The answer to `message` carrying `keys`, where `holderOf(key)` is the id of the message already
 * holding a key (stored or still in the inbox), and `newMessageId` the id a new message would get.
 * The id is taken exactly when the answer has a line.
 */
export function answerFollowup(
  message: FollowupMessage,
  keys: readonly string[],
  holderOf: (key: string) => string | undefined,
  newMessageId: string,
): FollowupAnswer {
  const known = keys.map(holderOf);
  const original = known[0];
  // Every reminder already held by one message: that message is the answer.
  if (keys.length > 0 && original !== undefined && known.every((id) => id === original)) return { messageId: original };
  const fresh = keys.filter((_, i) => known[i] === undefined);
  // Every reminder held, but by several messages: no one message holds them all. The answer is a
  // new id — the scheduler's receipts must name a message id new to each task — kept in the
  // transcript as a short note (no reminder, no keys), so the id is never handed out again.
  if (keys.length > 0 && fresh.length === 0) {
    const holders = [...new Set(known)].join(', ');
    const text = `Redelivered reminders already held by ${holders}.`;
    return { messageId: newMessageId, line: { messageId: newMessageId, role: 'user', producer: 'session', text } };
  }
  const narrowed = fresh.length === keys.length ? undefined : keepReminders(message.text, keys, new Set(fresh));
  return {
    messageId: newMessageId,
    line: {
      messageId: newMessageId,
      role: 'user',
      producer: message.producer,
      text: narrowed ?? message.text,
      idempotencyKeys: narrowed === undefined ? [...keys] : fresh,
    },
  };
}

/**
 * Takes a followup into `session`'s inbox as `answerFollowup` decides. `unstored` are lines a
 * flush in progress is writing: their keys are held too, though not stored yet.
 */
export function followupInto(
  session: SessionInbox,
  message: FollowupMessage,
  meta: FollowupMeta | undefined,
  unstored: readonly InboxLine[] = [],
): { messageId: string } {
  if (session.broken) throw new Error(`Session ${session.id} lost its inbox in a failed flush; resolve it again.`);
  const pending = keyHolders([...unstored, ...session.inbox]);
  const holderOf = (key: string) => session.delivered.get(key) ?? pending.get(key);
  const answer = answerFollowup(message, meta?.idempotencyKeys ?? [], holderOf, messageIdOf(session.nextNumber));
  if (answer.line !== undefined) {
    session.nextNumber++;
    session.inbox.push(answer.line);
  }
  return { messageId: answer.messageId };
}

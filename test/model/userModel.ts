// A model of the scheduler as a Host's user meets it: one reminder in one Session, the calls a
// user (or the model) makes, the clock, the Session's answers and Host restarts — and, in the
// context, what the user should then see: how many messages the Session holds and how many
// receipts the task's history has. The model-based tests generate paths through this machine
// and run each against the real service (test/model/user.test.ts).
import { assign, setup } from 'xstate';

export type CreateKind = 'after' | 'at' | 'every' | 'daily' | 'weekly' | 'cron';
export type ChangeKind = 'title' | 'at' | 'every' | 'daily' | 'weekly' | 'cron';
export type Fault = 'resolve' | 'followup' | 'flush' | 'storage';

export const CREATE_KINDS: readonly CreateKind[] = ['after', 'at', 'every', 'daily', 'weekly', 'cron'];
export const CHANGE_KINDS: readonly ChangeKind[] = ['title', 'at', 'every', 'daily', 'weekly', 'cron'];
export const FAULTS: readonly Fault[] = ['resolve', 'followup', 'flush', 'storage'];

export type UserEvent =
  /** `schedule_create` with a selector of this kind. */
  | { readonly type: 'create'; readonly kind: CreateKind }
  /** `schedule_update`: a new title, or a timing change to this kind. */
  | { readonly type: 'update'; readonly change: ChangeKind }
  /** `schedule_delete`. */
  | { readonly type: 'delete' }
  /** Archive admission stops the Session. */
  | { readonly type: 'session.stop' }
  /** The clock reaches the task's target: a delivery attempt starts (and waits for the Session). */
  | { readonly type: 'clock.due' }
  /** The Session takes the attempt in flight: resolve, followup and flush succeed, the write lands. */
  | { readonly type: 'deliver' }
  /** The attempt in flight fails at this point (`storage`: the flush succeeds, the write fails and its receipt waits). */
  | { readonly type: 'fail'; readonly fault: Fault }
  /** A change of another Session is written: a receipt waiting for its write is written at once. */
  | { readonly type: 'write.other' }
  /** The clock moves on by the retry backoff. */
  | { readonly type: 'clock.retry' }
  /** The Host closes the service and opens it again on the same storage. */
  | { readonly type: 'reopen' };

export interface UserContext {
  /** The stored task's kind (null when there is none). */
  readonly kind: CreateKind | null;
  /** Messages the Session holds. */
  readonly flushed: number;
  /** Receipts in the task's history. */
  readonly receipts: number;
  /** A timing change landed while the attempt was in flight (the edit wins over the delivery). */
  readonly retimed: boolean;
  /** The last attempt failed after such a timing change (the task waits for its new target). */
  readonly failedAfterRetime: boolean;
  /** A title edit while the task waited for its retry: the backoff is forgotten, it is due at the next wake. */
  readonly backoffForgotten: boolean;
}

export const isRecurringKind = (kind: CreateKind | null): boolean =>
  kind === 'every' || kind === 'daily' || kind === 'weekly' || kind === 'cron';

const INITIAL: UserContext = { kind: null, flushed: 0, receipts: 0, retimed: false, failedAfterRetime: false, backoffForgotten: false };

export const userModel = setup({
  types: { context: {} as UserContext, events: {} as UserEvent },
  guards: {
    retimed: ({ context }) => context.retimed,
    recurring: ({ context }) => isRecurringKind(context.kind),
    titleOnly: ({ event }) => event.type === 'update' && event.change === 'title',
    storageFault: ({ event }) => event.type === 'fail' && event.fault === 'storage',
    /** A title edit of a task that stays active once its delivery is recorded. */
    titleKeepsActive: ({ context, event }) =>
      event.type === 'update' && event.change === 'title' && (context.retimed || isRecurringKind(context.kind)),
  },
  actions: {
    created: assign(({ event }) => ({ ...INITIAL, kind: event.type === 'create' ? event.kind : null })),
    /** A timing change sets the kind (`title` keeps it) and puts the task back on its timer. */
    updated: assign(({ context, event }) => ({
      kind: event.type === 'update' && event.change !== 'title' ? event.change : context.kind,
      failedAfterRetime: false,
    })),
    retimedInFlight: assign(({ context, event }) =>
      event.type === 'update' && event.change !== 'title' ? { kind: event.change, retimed: true } : { kind: context.kind },
    ),
    gone: assign(({ context }) => ({ ...INITIAL, flushed: context.flushed })),
    delivered: assign(({ context }) => ({ flushed: context.flushed + 1, receipts: context.receipts + 1, retimed: false })),
    failed: assign(({ context }) => ({ failedAfterRetime: context.retimed, retimed: false, backoffForgotten: false })),
    forgetBackoff: assign({ backoffForgotten: true }),
    retried: assign({ backoffForgotten: false }),
    flushedOnly: assign(({ context }) => ({ flushed: context.flushed + 1 })),
    /** The receipt that waited for its write is written. */
    recorded: assign(({ context }) => ({ receipts: context.receipts + 1, retimed: false })),
    restarted: assign({ failedAfterRetime: false }),
  },
}).createMachine({
  id: 'user',
  context: INITIAL,
  initial: 'empty',
  states: {
    /** The Session has no task. */
    empty: {
      on: { create: { target: 'scheduled', actions: 'created' }, reopen: { target: 'empty' } },
    },
    /** The task waits for its target. */
    scheduled: {
      on: {
        update: { target: 'scheduled', actions: 'updated' },
        delete: { target: 'empty', actions: 'gone' },
        'session.stop': { target: 'empty', actions: 'gone' },
        'clock.due': { target: 'delivering' },
        reopen: { target: 'scheduled', actions: 'restarted' },
      },
    },
    /** A delivery attempt is in flight. */
    delivering: {
      on: {
        deliver: [
          { guard: 'retimed', target: 'scheduled', actions: 'delivered' },
          { guard: 'recurring', target: 'scheduled', actions: 'delivered' },
          { target: 'ended', actions: 'delivered' },
        ],
        fail: [
          /** The Session holds the message; only the write failed: it is retried, not the delivery. */
          { guard: 'storageFault', target: 'committing', actions: 'flushedOnly' },
          { guard: 'retimed', target: 'scheduled', actions: 'failed' },
          { target: 'retrying', actions: 'failed' },
        ],
        update: { target: 'delivering', actions: 'retimedInFlight' },
        delete: { target: 'orphaned', actions: 'gone' },
        'session.stop': { target: 'orphaned', actions: 'gone' },
      },
    },
    /**
     * The Session holds the message but its receipt's write failed: the receipt waits in memory
     * for its write (the task is not delivered meanwhile) and is written by the next successful
     * write — another change, an edit of the task (kept: as during a delivery, a timing edit keeps
     * its new target) or the close; a delete drops it.
     */
    committing: {
      on: {
        'write.other': [
          { guard: 'retimed', target: 'scheduled', actions: 'recorded' },
          { guard: 'recurring', target: 'scheduled', actions: 'recorded' },
          { target: 'ended', actions: 'recorded' },
        ],
        update: [
          { guard: 'titleKeepsActive', target: 'scheduled', actions: 'recorded' },
          { guard: 'titleOnly', target: 'ended', actions: 'recorded' },
          { target: 'scheduled', actions: ['retimedInFlight', 'recorded'] },
        ],
        delete: { target: 'empty', actions: 'gone' },
        'session.stop': { target: 'empty', actions: 'gone' },
        reopen: [
          { guard: 'retimed', target: 'scheduled', actions: ['recorded', 'restarted'] },
          { guard: 'recurring', target: 'scheduled', actions: ['recorded', 'restarted'] },
          { target: 'ended', actions: 'recorded' },
        ],
      },
    },
    /** The last attempt failed; the task waits for its retry (a title edit makes it due at the next wake). */
    retrying: {
      on: {
        'clock.retry': { target: 'delivering', actions: 'retried' },
        update: [
          { guard: 'titleOnly', target: 'retrying', actions: 'forgetBackoff' },
          { target: 'scheduled', actions: ['updated', 'retried'] },
        ],
        delete: { target: 'empty', actions: 'gone' },
        'session.stop': { target: 'empty', actions: 'gone' },
        /** A restart delivers an overdue task at once. */
        reopen: { target: 'delivering', actions: 'retried' },
      },
    },
    /** A one-shot was delivered: the task is inactive, kept with its history. */
    ended: {
      on: {
        /** Refused with `schedule_ended`. */
        update: { target: 'ended' },
        delete: { target: 'empty', actions: 'gone' },
        /** Stopping a Session deletes only its active tasks. */
        'session.stop': { target: 'ended' },
        reopen: { target: 'ended' },
      },
    },
    /** The task was deleted while its attempt was in flight; the message may still arrive. */
    orphaned: {
      on: {
        deliver: { target: 'empty', actions: 'flushedOnly' },
        fail: { target: 'empty' },
      },
    },
  },
});

export type UserModel = typeof userModel;

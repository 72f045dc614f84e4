// The Sessions as one shard's schedule service sees them on a cluster Host: a reminder is appended
// to a Session, and the Session is flushed, only while this Host's lease on the shard is live by
// the Host's own clock. A Host that was paused past its lease (a stopped process, a long stall)
// finds its timers due when it runs again, before its shard keeper has stepped and closed the
// shard's service; without the check at `followup` it would append reminders that the shard's new
// owner has already delivered, and without the check at `flush` a Host that stalled between the
// two would persist one it appended while the lease still held. A refusal at either step is a
// failed delivery attempt like any other (nothing is committed, the task waits for its retry), and
// the service closes when the keeper steps.
// Each followup also carries the lease it is taken under (`meta.lease`), so Sessions kept in the
// cluster's database can check it again inside the transaction that writes them, by the database's
// clock; for other Sessions the check at `flush` is the last, and docs/delivery.md says what is
// left between it and the Session's own write.
import type { FollowupLease, FollowupMessage, FollowupMeta, ScheduleAgent, SessionController } from '../ports.ts';

/** Why an append or a flush was refused: the lease of `shard` may have run out, with `outcome`. */
const leaseRunOut = (shard: number, outcome: string): Error =>
  new Error(
    `This Host's lease on shard ${shard} may have run out (by its own clock it was not renewed in time, as after a pause); ${outcome}.`,
  );

/**
 * `sessions` for the service of `lease.shard` during this Host's term at `lease.epoch`: appending
 * and flushing only while `live()` says the lease is held, each followup carrying `lease`.
 */
export function leasedSessions(sessions: SessionController, lease: FollowupLease, live: () => boolean): SessionController {
  return {
    resolveAgent: async (sessionId: string): Promise<ScheduleAgent> => {
      const agent = await sessions.resolveAgent(sessionId);
      return {
        followup: (message: FollowupMessage, meta?: FollowupMeta) => {
          if (!live()) throw leaseRunOut(lease.shard, "the reminder was not appended and is left to the shard's owner");
          return agent.followup(message, { idempotencyKeys: meta?.idempotencyKeys ?? [], ...meta, lease });
        },
        flush: async () => {
          if (!live()) throw leaseRunOut(lease.shard, "the Session was not flushed and its reminders are left to the shard's owner");
          await agent.flush();
        },
      };
    },
  };
}

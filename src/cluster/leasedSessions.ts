// The Sessions as one shard's schedule service sees them on a cluster Host: a reminder is appended
// to a Session only while this Host's lease on the shard is live by the Host's own clock. A Host
// that was paused past its lease (a stopped process, a long stall) finds its timers due when it
// runs again, before its shard keeper has stepped and closed the shard's service; without this
// check it would append reminders that the shard's new owner has already delivered. The refused
// append is a failed delivery attempt like any other (nothing is appended, the task waits for its
// retry), and the service closes when the keeper steps.
import type { FollowupMessage, FollowupMeta, ScheduleAgent, SessionController } from '../ports.ts';

/** `sessions` for the service of `shard`, appending only while `live()` says the lease is held. */
export function leasedSessions(sessions: SessionController, shard: number, live: () => boolean): SessionController {
  return {
    resolveAgent: async (sessionId: string): Promise<ScheduleAgent> => {
      const agent = await sessions.resolveAgent(sessionId);
      return {
        followup: (message: FollowupMessage, meta?: FollowupMeta) => {
          if (!live()) {
            throw new Error(
              `This Host's lease on shard ${shard} may have run out (by its own clock it was not renewed in time, as after a pause); the reminder was not appended and is left to the shard's owner.`,
            );
          }
          return agent.followup(message, meta);
        },
        flush: () => agent.flush(),
      };
    },
  };
}

// The Sessions a shard's service sees on a cluster Host, with the lease view faked by a flag: a
// followup is taken only while the lease is held and carries the lease it was taken under; a flush
// after the lease was lost (a Host that stalled between the two) rejects without reaching the
// Session, so no delivery is committed by a Host that no longer holds the shard.
import { leasedSessions } from '../../src/cluster/leasedSessions.ts';
import type { FollowupMeta, ScheduleAgent, SessionController } from '../../src/index.ts';
import { reminder } from '../host/reminderMessages.ts';

/** A Session controller that records what reaches it. */
function recordingSessions() {
  const metas: Array<FollowupMeta | undefined> = [];
  let flushes = 0;
  const agent: ScheduleAgent = {
    followup: (_message, meta) => {
      metas.push(meta);
      return { messageId: `msg-${metas.length}` };
    },
    flush: async () => {
      flushes++;
    },
  };
  const sessions: SessionController = { resolveAgent: async () => agent };
  return { sessions, metas, flushes: () => flushes };
}

const LEASE = { hostId: 'host-a', shard: 7, epoch: 3 };

describe('leasedSessions', () => {
  it('a followup while the lease is held reaches the Session with the lease it was taken under, and its flush goes through', async () => {
    const inner = recordingSessions();
    const agent = await leasedSessions(inner.sessions, LEASE, () => true).resolveAgent('demo');
    expect(agent.followup(reminder('sch_1', 'tea'), { idempotencyKeys: ['sch_1@x'] })).toEqual({ messageId: 'msg-1' });
    expect(inner.metas).toEqual([{ idempotencyKeys: ['sch_1@x'], lease: LEASE }]);
    await agent.flush();
    expect(inner.flushes()).toBe(1);
  });

  it('a followup while the lease is held, then the lease is lost: the flush rejects and never reaches the Session', async () => {
    const inner = recordingSessions();
    let held = true;
    const agent = await leasedSessions(inner.sessions, LEASE, () => held).resolveAgent('demo');
    agent.followup(reminder('sch_1', 'tea'), { idempotencyKeys: ['sch_1@x'] });
    held = false;
    await expect(agent.flush()).rejects.toThrow(/lease on shard 7 .*not flushed/);
    expect(inner.flushes()).toBe(0);
  });

  it('a followup after the lease was lost is refused before it reaches the Session', async () => {
    const inner = recordingSessions();
    const agent = await leasedSessions(inner.sessions, LEASE, () => false).resolveAgent('demo');
    expect(() => agent.followup(reminder('sch_1', 'tea'), { idempotencyKeys: ['sch_1@x'] })).toThrow(/lease on shard 7 .*not appended/);
    expect(inner.metas).toEqual([]);
  });
});

// The `clusterMember` effect actor of a supervisor whose storage many Hosts share: it joins the
// cluster through the storage's membership with the Host's ports, runs each call it receives on
// the joined member (which answers it here or hands it to the Session's owner), reports each
// settled call and every change committed at any Host, and on `member.leave` waits for the calls
// in progress, leaves the cluster and reports `member.left`. Calls that arrive before the cluster
// is joined wait here, in arrival order.
import { fromCallback } from 'xstate';
import type { ScheduleCallEvent } from '../../machines/events.ts';
import { rejected } from '../../machines/scheduleReply.ts';
import type { MemberCommand, MemberEvent, SupervisorInput } from '../../machines/supervisorMachine.ts';
import type { JoinedCluster } from '../ports.ts';
import { consoleLogger, isSupervisorInput } from './supervisorInput.ts';

export const clusterMember = fromCallback<MemberCommand, SupervisorInput>(({ input, sendBack, receive }) => {
  const report = (event: MemberEvent): void => sendBack(event);
  const running = new Set<Promise<void>>();
  let waiting: ScheduleCallEvent[] | null = [];
  let joined: JoinedCluster | null = null;
  let leaving = false;
  let unsubscribe = (): void => undefined;

  const run = (member: JoinedCluster, call: ScheduleCallEvent): void => {
    const settled = member.run(call.call).then(
      (value) => report({ type: 'member.settled', call, body: { ok: true, value } }),
      (error: unknown) => report({ type: 'member.settled', call, body: rejected(error) }),
    );
    running.add(settled);
    void settled.finally(() => running.delete(settled));
  };

  /** Leaves once the calls in progress settled (each answered by this term's work), then reports it. */
  const leave = (member: JoinedCluster): void => {
    void (async () => {
      while (running.size > 0) await Promise.all(running);
      unsubscribe();
      await member.close();
    })().then(
      () => report({ type: 'member.left' }),
      (error: unknown) => report({ type: 'member.failed', error }),
    );
  };

  const join = async (): Promise<JoinedCluster> => {
    if (!isSupervisorInput(input) || input.storage?.cluster === undefined) {
      throw new TypeError('A cluster member needs input.sessions and a storage with a cluster membership.');
    }
    const { sessions, clock, config, logger = consoleLogger, metrics } = input;
    return input.storage.cluster.join({
      sessions,
      logger,
      ...(clock === undefined ? {} : { clock }),
      ...(config === undefined ? {} : { config }),
      ...(metrics === undefined ? {} : { metrics }),
    });
  };

  void join().then(
    (member) => {
      joined = member;
      unsubscribe = member.subscribe((change) => report({ type: 'member.changed', sessionId: change.sessionId, ids: change.ids }));
      report({ type: 'member.joined' });
      const held = waiting ?? [];
      waiting = null;
      for (const call of held) run(member, call);
      if (leaving) leave(member);
    },
    (error: unknown) => report({ type: 'member.failed', error }),
  );

  receive((event) => {
    if (event.type === 'schedule.call') {
      if (joined === null) waiting?.push(event);
      else run(joined, event);
      return;
    }
    if (leaving) return;
    leaving = true;
    if (joined !== null) leave(joined);
  });
});

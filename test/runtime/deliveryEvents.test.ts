// The events one delivery takes: every `@xstate.event` the actor system sees from the timer's
// wake that finds a reminder due to the service going idle with its delivery recorded, and the
// actors they reach. The bounds are what the delivery path takes today, so a hop added to it
// fails here.
import type { ScheduleInspectionEvent } from '../../src/domain/serviceOptions.ts';
import { closeAll, create, harness, MINUTE, tick } from '../support/harness.ts';

afterEach(closeAll);

/** The events one delivery takes and the actors they reach, at most: a one-shot also leaves the tree. */
const BOUNDS = {
  'a one-shot': { args: { after_seconds: 60 }, status: 'inactive', events: 14, actors: 7 },
  'a recurring task': { args: { every_seconds: 60 }, status: 'active', events: 12, actors: 5 },
} as const;

interface Seen {
  readonly type: string;
  readonly target: string;
}

/** An `@xstate.event` inspection event's event type and the id of the actor it reached. */
function seen(event: ScheduleInspectionEvent): Seen | undefined {
  if (event.type !== '@xstate.event') return undefined;
  const { event: sent, actorRef } = event as ScheduleInspectionEvent & {
    readonly event: { readonly type: string };
    readonly actorRef: { readonly id: string };
  };
  return { type: sent.type, target: actorRef.id };
}

describe('one delivery of one reminder', () => {
  for (const [name, bound] of Object.entries(BOUNDS)) {
    it(`${name} takes at most ${bound.events} actor events across at most ${bound.actors} actors`, async () => {
      let recording = false;
      const events: Seen[] = [];
      const h = await harness({
        inspect: (event) => {
          if (!recording) return;
          const one = seen(event);
          if (one !== undefined) events.push(one);
        },
      });
      const task = await create(h, 's1', bound.args);
      await h.svc.whenIdle();
      recording = true;
      await tick(h, MINUTE);
      recording = false;

      expect(h.sessions.messages('s1')).toHaveLength(1);
      expect(await h.svc.remote.get({ sessionId: 's1', id: task.id })).toMatchObject({ status: bound.status });
      const actors = new Set(events.map((e) => e.target));
      console.info(
        `${name}: ${events.length} events across ${actors.size} actors\n${events.map((e) => `  ${e.type} → ${e.target}`).join('\n')}`,
      );
      expect(events.length).toBeLessThanOrEqual(bound.events);
      expect(actors.size).toBeLessThanOrEqual(bound.actors);
    });
  }
});

// The timer's priority queue against a naive model: any sequence of set / delete / takeDue gives
// the same answers as a plain map scanned in full — for ids the queue indexes by number (`sch_<n>`,
// dense and sparse, growing past its first slots) and for any other ids, and for the two mixed.
import fc from 'fast-check';
import { DueQueue } from '../../src/runtime/dueQueue.ts';

type Op = { op: 'set'; id: number; due: number } | { op: 'delete'; id: number } | { op: 'take'; now: number } | { op: 'peek' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('set' as const), id: fc.integer({ min: 0, max: 30 }), due: fc.integer({ min: 0, max: 1000 }) }),
  fc.record({ op: fc.constant('delete' as const), id: fc.integer({ min: 0, max: 30 }) }),
  fc.record({ op: fc.constant('take' as const), now: fc.integer({ min: 0, max: 1000 }) }),
  fc.record({ op: fc.constant('peek' as const) }),
);

/** How an op's number becomes an id: other ids, task ids, sparse task ids, or both kinds mixed. */
const ID_SHAPES: ReadonlyArray<[string, (n: number) => string]> = [
  ['other ids', (n) => `t${n}`],
  ['task ids', (n) => `sch_${n + 1}`],
  ['sparse task ids', (n) => `sch_${(n + 1) * 997}`],
  ['task ids and other ids', (n) => (n % 3 === 0 ? `t${n}` : `sch_${n * 300 + 1}`)],
];

describe('DueQueue', () => {
  it.each(ID_SHAPES)('matches a naive model on random operation sequences (%s)', (_shape, idOf) => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 300 }), (ops) => {
        const queue = new DueQueue();
        const model = new Map<string, number>();
        for (const o of ops) {
          if (o.op === 'set') {
            queue.set(idOf(o.id), o.due);
            model.set(idOf(o.id), o.due);
          } else if (o.op === 'delete') {
            queue.delete(idOf(o.id));
            model.delete(idOf(o.id));
          } else if (o.op === 'peek') {
            const expected = model.size === 0 ? undefined : Math.min(...model.values());
            expect(queue.peek()).toBe(expected);
          } else {
            const due = [...model].filter(([, d]) => d <= o.now);
            const taken = queue.takeDue(o.now);
            expect(taken.map((id) => model.get(id))).toEqual(due.map(([, d]) => d).sort((a, b) => a - b));
            expect(new Set(taken)).toEqual(new Set(due.map(([id]) => id)));
            for (const [id] of due) model.delete(id);
          }
          expect(queue.size).toBe(model.size);
        }
      }),
      { seed: 20300101, numRuns: 500 },
    );
  });
});

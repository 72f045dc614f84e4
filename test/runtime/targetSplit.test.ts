// TargetSplit against a brute-force count: after any sequence of sets, deletes and reads at clock
// values that move both ways, the number of ids held at or before `now` is what a scan of the
// held keys finds. Ids are task ids and other strings, keys repeat, so heap entries go stale and
// duplicate.
import fc from 'fast-check';
import { TargetSplit } from '../../src/runtime/targetSplit.ts';

type Op = { kind: 'set'; id: string; at: number } | { kind: 'delete'; id: string } | { kind: 'read'; now: number };

const id = fc.oneof(
  fc.integer({ min: 1, max: 40 }).map((n) => `sch_${n}`),
  fc.constantFrom('other', 'x', 'sch_9000000'),
);
const instant = fc.integer({ min: 0, max: 30 });
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), id, at: instant }),
  fc.record({ kind: fc.constant('delete' as const), id }),
  fc.record({ kind: fc.constant('read' as const), now: instant }),
);

describe('TargetSplit', () => {
  it('counts the keys at or before now as a scan does, whichever way the clock moves', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
        const split = new TargetSplit();
        const held = new Map<string, number>();
        for (const o of ops) {
          if (o.kind === 'set') {
            split.set(o.id, o.at);
            held.set(o.id, o.at);
          } else if (o.kind === 'delete') {
            split.delete(o.id);
            held.delete(o.id);
          } else {
            const expected = [...held.values()].filter((at) => at <= o.now).length;
            expect(split.atOrBefore(o.now)).toBe(expected);
          }
          expect(split.size).toBe(held.size);
        }
      }),
      { seed: 36, numRuns: 500 },
    );
  });

  it('counts appended keys once they are ordered', () => {
    const split = new TargetSplit();
    for (let n = 1; n <= 1000; n++) split.append(`sch_${n}`, n % 97);
    split.heapify();
    expect(split.atOrBefore(10)).toBe(Array.from({ length: 1000 }, (_, i) => (i + 1) % 97).filter((at) => at <= 10).length);
    expect(split.atOrBefore(-1)).toBe(0);
    expect(split.atOrBefore(100)).toBe(1000);
  });
});

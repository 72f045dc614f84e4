// The supervisor's mailbox is a FIFO queue: any sequence of arrivals, peeks and takes agrees with
// a plain array, and no operation changes a mailbox it was given.
import fc from 'fast-check';
import { emptyMailbox, type Mailbox, mailboxDrop, mailboxHead, mailboxItems, mailboxPush } from '../../machines/mailbox.ts';

type Step = { readonly push: number } | { readonly drop: number } | { readonly head: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ push: fc.integer() }),
  fc.record({ drop: fc.integer({ min: -1, max: 6 }) }),
  fc.record({ head: fc.integer({ min: 0, max: 6 }) }),
);

describe('mailbox', () => {
  it('agrees with an array on any sequence of arrivals, peeks and takes, and never changes a mailbox it was given', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 80 }), (steps) => {
        let box: Mailbox<number> = emptyMailbox();
        let model: number[] = [];
        for (const s of steps) {
          const before = [...mailboxItems(box)];
          if ('push' in s) {
            const next = mailboxPush(box, s.push);
            model = [...model, s.push];
            expect([...mailboxItems(box)]).toEqual(before);
            box = next;
          } else if ('drop' in s) {
            const next = mailboxDrop(box, s.drop);
            model = model.slice(Math.max(s.drop, 0));
            expect([...mailboxItems(box)]).toEqual(before);
            box = next;
          } else {
            expect(mailboxHead(box, s.head)).toEqual(model.slice(0, s.head));
          }
          expect([...mailboxItems(box)]).toEqual(model);
          expect(box.size).toBe(model.length);
        }
      }),
      { seed: 20261201, numRuns: 500 },
    );
  });

  it('keeps the oldest command at the head after a burst that arrived behind it', () => {
    let box: Mailbox<string> = mailboxPush(emptyMailbox(), 'first');
    for (let i = 0; i < 1000; i++) box = mailboxPush(box, `call ${i}`);
    expect(mailboxHead(box, 2)).toEqual(['first', 'call 0']);
    box = mailboxDrop(box, 1);
    expect(mailboxHead(box, 1)).toEqual(['call 0']);
    expect(box.size).toBe(1000);
    expect([...mailboxItems(mailboxDrop(box, 998))]).toEqual(['call 998', 'call 999']);
  });
});

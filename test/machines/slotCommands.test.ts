// Which commands share a mailbox slot: a run of delivery commits, or a run of creates for pairwise
// different Sessions (at most CREATE_RUN_LIMIT); every other command has a slot of its own, so a
// call sees exactly what was queued before it.
import type { DeliveryOutcome, MailboxCommand } from '../../machines/events.ts';
import { emptyMailbox, type Mailbox, mailboxPush } from '../../machines/mailbox.ts';
import { CREATE_RUN_LIMIT, slotCommands } from '../../machines/supervisorMachine.ts';

const tool = (sessionId: string, name: string, n: number): MailboxCommand => ({
  requestId: `r${n}`,
  operation: { kind: 'tool', sessionId, name, args: { n } },
});
const create = (sessionId: string, n: number): MailboxCommand => tool(sessionId, 'schedule_create', n);
const commit = (sessionId: string): MailboxCommand => ({
  requestId: null,
  operation: { kind: 'delivery.commit', sessionId, outcome: {} as DeliveryOutcome },
});

const queueOf = (commands: readonly MailboxCommand[]): Mailbox<MailboxCommand> =>
  commands.reduce((box, command) => mailboxPush(box, command), emptyMailbox<MailboxCommand>());

const slotOf = (commands: readonly MailboxCommand[]): readonly MailboxCommand[] => slotCommands(queueOf(commands));

describe('slotCommands', () => {
  it('an empty mailbox has no slot', () => {
    expect(slotOf([])).toEqual([]);
  });

  it('creates for different Sessions at the head share a slot, up to the first other call', () => {
    const queued = [create('a', 1), create('b', 2), create('c', 3), tool('a', 'schedule_list', 4), create('d', 5)];
    expect(slotOf(queued)).toEqual(queued.slice(0, 3));
  });

  it('a second create for a Session already in the run ends the run', () => {
    const queued = [create('a', 1), create('b', 2), create('a', 3), create('c', 4)];
    expect(slotOf(queued)).toEqual(queued.slice(0, 2));
  });

  it('two creates for one Session in a row are two slots', () => {
    const queued = [create('a', 1), create('a', 2)];
    expect(slotOf(queued)).toEqual(queued.slice(0, 1));
  });

  it(`a run takes at most ${CREATE_RUN_LIMIT} creates`, () => {
    const queued = Array.from({ length: CREATE_RUN_LIMIT + 5 }, (_, i) => create(`s${i}`, i));
    expect(slotOf(queued)).toEqual(queued.slice(0, CREATE_RUN_LIMIT));
  });

  it('a call of another kind at the head runs alone, even with creates behind it', () => {
    const queued = [tool('a', 'schedule_update', 1), create('b', 2), create('c', 3)];
    expect(slotOf(queued)).toEqual(queued.slice(0, 1));
  });

  it('a create does not join a run of delivery commits, nor a delivery commit a run of creates', () => {
    expect(slotOf([commit('a'), commit('b'), create('c', 1)])).toHaveLength(2);
    expect(slotOf([create('c', 1), create('d', 2), commit('a')])).toHaveLength(2);
  });

  it('remote calls never share a slot', () => {
    const remote: MailboxCommand = { requestId: 'r1', operation: { kind: 'remote', method: 'list', request: { sessionId: 'a' } } };
    expect(slotOf([remote, create('b', 2)])).toEqual([remote]);
  });
});

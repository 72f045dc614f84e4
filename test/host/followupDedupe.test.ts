// How a Session answers a followup from the keys its messages hold, apart from any store: a
// redelivery is answered with the holder's id and adds nothing, a batch is narrowed to the
// reminders no message holds, all held by several messages gives a note, and the inbox takes a
// new message number only when it takes a line.
import { answerFollowup, followupInto, messageNumber, type SessionInbox } from '../../host/sessions/followupDedupe.ts';
import { batch, keyOf, reminder } from './reminderMessages.ts';

const held = (holders: Record<string, string>) => (key: string) => holders[key];

describe('answerFollowup', () => {
  it('answers a reminder whose keys one message holds with that message, adding nothing', () => {
    expect(answerFollowup(reminder('sch_1', 'a'), [keyOf('sch_1')], held({ [keyOf('sch_1')]: 'msg-1' }), 'msg-5')).toEqual({
      messageId: 'msg-1',
    });
  });

  it('appends a message none of whose keys is held, with all its keys', () => {
    const message = reminder('sch_1', 'a');
    expect(answerFollowup(message, [keyOf('sch_1')], held({}), 'msg-5')).toEqual({
      messageId: 'msg-5',
      line: { messageId: 'msg-5', role: 'user', producer: 'schedule', text: message.text, idempotencyKeys: [keyOf('sch_1')] },
    });
    expect(answerFollowup(message, [], held({}), 'msg-5').line?.idempotencyKeys).toEqual([]);
  });

  it('narrows a batch to the reminders no message holds', () => {
    const answer = answerFollowup(
      batch(['sch_1', 'sch_2']),
      [keyOf('sch_1'), keyOf('sch_2')],
      held({ [keyOf('sch_1')]: 'msg-1' }),
      'msg-2',
    );
    expect(answer.line).toMatchObject({ messageId: 'msg-2', text: batch(['sch_2']).text, idempotencyKeys: [keyOf('sch_2')] });
  });

  it('appends a partly held message that is not a batch as it came, with all its keys', () => {
    const message = reminder('sch_1', 'a');
    const answer = answerFollowup(message, [keyOf('sch_1'), keyOf('sch_3')], held({ [keyOf('sch_1')]: 'msg-1' }), 'msg-2');
    expect(answer.line).toMatchObject({ text: message.text, idempotencyKeys: [keyOf('sch_1'), keyOf('sch_3')] });
  });

  it('answers reminders all held by several messages with a new id kept as a note without keys', () => {
    const holders = held({ [keyOf('sch_1')]: 'msg-1', [keyOf('sch_2')]: 'msg-2' });
    expect(answerFollowup(batch(['sch_1', 'sch_2']), [keyOf('sch_1'), keyOf('sch_2')], holders, 'msg-3')).toEqual({
      messageId: 'msg-3',
      line: { messageId: 'msg-3', role: 'user', producer: 'session', text: 'Redelivered reminders already held by msg-1, msg-2.' },
    });
  });
});

describe('followupInto', () => {
  const session = (): SessionInbox => ({
    id: 'demo',
    nextNumber: 4,
    delivered: new Map([[keyOf('sch_1'), 'msg-1']]),
    inbox: [],
    broken: false,
  });

  it('numbers new messages on, and holds the keys of the inbox and of the lines being written', () => {
    const s = session();
    const writing = [{ messageId: 'msg-3', role: 'user' as const, producer: 'schedule', text: 'x', idempotencyKeys: [keyOf('sch_2')] }];
    expect(followupInto(s, reminder('sch_1', 'a'), { idempotencyKeys: [keyOf('sch_1')] }, writing)).toEqual({ messageId: 'msg-1' });
    expect(followupInto(s, reminder('sch_2', 'b'), { idempotencyKeys: [keyOf('sch_2')] }, writing)).toEqual({ messageId: 'msg-3' });
    expect(followupInto(s, reminder('sch_3', 'c'), { idempotencyKeys: [keyOf('sch_3')] }, writing)).toEqual({ messageId: 'msg-4' });
    expect(followupInto(s, reminder('sch_3', 'c'), { idempotencyKeys: [keyOf('sch_3')] }, writing)).toEqual({ messageId: 'msg-4' });
    expect(s.inbox.map((line) => line.messageId)).toEqual(['msg-4']);
    expect(s.nextNumber).toBe(5);
  });

  it('refuses a followup into a Session whose flush failed', () => {
    expect(() => followupInto({ ...session(), broken: true }, reminder('sch_2', 'b'), undefined)).toThrow(
      /demo lost its inbox in a failed flush/,
    );
  });
});

describe('messageNumber', () => {
  it.each([
    ['msg-12', 12],
    ['msg-1.r1', 0],
    ['note', 0],
  ])('%s is number %d', (id, number) => {
    expect(messageNumber(id)).toBe(number);
  });
});

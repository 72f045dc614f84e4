// File-backed Sessions without any server: JSONL transcripts, fsynced flushes, the demo agent's
// answers, restoring a cold Session from its file, dropping a redelivery by its idempotency keys
// (also after a restart), repairing a torn last line, and refusing unsafe Session ids.
import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { demoReplies } from '../../host/sessions/demoAgent.ts';
import { createFileSessions, type FileSessions } from '../../host/sessions/fileSessions.ts';
import { keyOf, NOW, reminder } from './reminderMessages.ts';

let dir: string;
const open = (demoAgent = true): FileSessions => createFileSessions({ dir, now: () => NOW, demoAgent });
const fileLines = async (sessionId: string) =>
  (await readFile(join(dir, `${sessionId}.jsonl`), 'utf8'))
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { messageId: string; role: string; text: string; idempotencyKeys?: string[] });

beforeEach(async () => {
  dir = join(await mkdtemp(join(tmpdir(), 'agent-schedule-sessions-')), 'sessions');
});
afterEach(async () => {
  await rm(join(dir, '..'), { recursive: true, force: true });
});

describe('file-backed Sessions', () => {
  it('followup only fills the inbox; flush appends the message and the demo agent answer to <id>.jsonl', async () => {
    const sessions = open();
    const agent = await sessions.resolveAgent('demo');
    const { messageId } = agent.followup(reminder('sch_1', 'check the build'), { idempotencyKeys: [keyOf('sch_1')] });
    expect(messageId).toBe('msg-1');
    expect(await sessions.transcript('demo')).toEqual([]);
    await agent.flush();
    const lines = await fileLines('demo');
    expect(lines.map((l) => [l.messageId, l.role, l.role === 'assistant' ? l.text : l.idempotencyKeys])).toEqual([
      ['msg-1', 'user', [keyOf('sch_1')]],
      ['msg-1.r1', 'assistant', 'reminder received: check the build'],
    ]);
    expect(await sessions.transcript('demo')).toHaveLength(2);
    expect(await sessions.list()).toEqual(['demo']);
  });

  it('tells subscribers what each flush made durable', async () => {
    const sessions = open(false);
    const seen: Array<[string, number]> = [];
    sessions.subscribe(({ sessionId, lines }) => seen.push([sessionId, lines.length]));
    const agent = await sessions.resolveAgent('s1');
    agent.followup(reminder('sch_1', 'a'));
    agent.followup(reminder('sch_2', 'b'));
    await agent.flush();
    await agent.flush();
    expect(seen).toEqual([['s1', 2]]);
  });

  it('restores a cold Session from its file: numbering continues after the last message', async () => {
    const first = open(false);
    const agent = await first.resolveAgent('demo');
    agent.followup(reminder('sch_1', 'a'));
    await agent.flush();
    const restarted = open(false);
    const again = await restarted.resolveAgent('demo');
    expect(again.followup(reminder('sch_2', 'b'), { idempotencyKeys: [keyOf('sch_2')] }).messageId).toBe('msg-2');
    await again.flush();
    expect((await fileLines('demo')).map((l) => l.messageId)).toEqual(['msg-1', 'msg-2']);
  });

  it('drops a redelivery whose keys were all delivered and answers with the original message id', async () => {
    const sessions = open(false);
    const agent = await sessions.resolveAgent('demo');
    agent.followup(reminder('sch_1', 'a'), { idempotencyKeys: [keyOf('sch_1')] });
    await agent.flush();
    expect(agent.followup(reminder('sch_1', 'a'), { idempotencyKeys: [keyOf('sch_1')] })).toEqual({ messageId: 'msg-1' });
    await agent.flush();
    expect(await fileLines('demo')).toHaveLength(1);
  });

  it('drops a redelivery after a restart, from the keys kept in the transcript', async () => {
    const before = open(false);
    const agent = await before.resolveAgent('demo');
    agent.followup(reminder('sch_1', 'a'), { idempotencyKeys: [keyOf('sch_1'), keyOf('sch_2')] });
    await agent.flush();
    const after = await open(false).resolveAgent('demo');
    expect(after.followup(reminder('sch_1', 'a'), { idempotencyKeys: [keyOf('sch_2'), keyOf('sch_1')] })).toEqual({ messageId: 'msg-1' });
    await after.flush();
    expect(await fileLines('demo')).toHaveLength(1);
  });

  it('answers a redelivery held by several messages with a new id, kept as a note, never reused after a restart', async () => {
    const before = open(false);
    const agent = await before.resolveAgent('demo');
    agent.followup(reminder('sch_1', 'a'), { idempotencyKeys: [keyOf('sch_1')] });
    agent.followup(reminder('sch_2', 'b'), { idempotencyKeys: [keyOf('sch_2')] });
    await agent.flush();
    const answer = agent.followup(reminder('sch_1', 'a'), { idempotencyKeys: [keyOf('sch_1'), keyOf('sch_2')] });
    expect(answer).toEqual({ messageId: 'msg-3' });
    await agent.flush();
    const lines = await fileLines('demo');
    expect(lines.map((l) => [l.messageId, l.idempotencyKeys ?? []])).toEqual([
      ['msg-1', [keyOf('sch_1')]],
      ['msg-2', [keyOf('sch_2')]],
      ['msg-3', []],
    ]);
    expect(lines[2]?.text).toBe('Redelivered reminders already held by msg-1, msg-2.');
    const after = await open(false).resolveAgent('demo');
    expect(after.followup(reminder('sch_3', 'c'), { idempotencyKeys: [keyOf('sch_3')] })).toEqual({ messageId: 'msg-4' });
  });

  it('delivers a message that carries any key not delivered yet', async () => {
    const sessions = open(false);
    const agent = await sessions.resolveAgent('demo');
    agent.followup(reminder('sch_1', 'a'), { idempotencyKeys: [keyOf('sch_1')] });
    await agent.flush();
    expect(agent.followup(reminder('sch_1', 'a'), { idempotencyKeys: [keyOf('sch_1'), keyOf('sch_3')] }).messageId).toBe('msg-2');
    await agent.flush();
    expect(await fileLines('demo')).toHaveLength(2);
  });

  it('cuts a torn last line (a crash during an append) before appending again', async () => {
    await mkdir(dir, { recursive: true });
    const good = {
      messageId: 'msg-1',
      role: 'user',
      producer: 'schedule',
      text: 'x',
      at: '2030-01-07T08:00:00.000Z',
      idempotencyKeys: ['k1'],
    };
    await writeFile(join(dir, 'demo.jsonl'), `${JSON.stringify(good)}\n{"messageId":"msg-2","ro`);
    const sessions = open(false);
    expect(await sessions.transcript('demo')).toEqual([good]);
    const agent = await sessions.resolveAgent('demo');
    expect(agent.followup(reminder('sch_2', 'b')).messageId).toBe('msg-2');
    await agent.flush();
    expect((await fileLines('demo')).map((l) => l.messageId)).toEqual(['msg-1', 'msg-2']);
  });

  it('refuses to restore a transcript with a broken line in the middle', async () => {
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'demo.jsonl'), 'not json\n{}\n');
    await expect(open().resolveAgent('demo')).rejects.toThrow(/demo\.jsonl:1 is not a JSON line/);
  });

  it.each(['', '../escape', 'a/b', '.hidden', 'x'.repeat(65), 'nul\u0000', 'con fig'])('refuses the Session id %j', async (id) => {
    await expect(open().resolveAgent(id)).rejects.toThrow(/is not a Session id/);
    expect(await open().transcript(id)).toEqual([]);
  });

  it('after a failed flush, forgets its copy; the next resolve rereads the file', async () => {
    const sessions = open(false);
    const agent = await sessions.resolveAgent('demo');
    agent.followup(reminder('sch_1', 'a'));
    await agent.flush();
    // A folder where the transcript should be makes the append fail.
    await rm(join(dir, 'demo.jsonl'));
    await mkdir(join(dir, 'demo.jsonl'));
    agent.followup(reminder('sch_2', 'b'));
    await expect(agent.flush()).rejects.toThrow();
    expect(() => agent.followup(reminder('sch_3', 'c'))).toThrow(/failed flush/);
    await rm(join(dir, 'demo.jsonl'), { recursive: true });
    await appendFile(join(dir, 'demo.jsonl'), '');
    const fresh = await sessions.resolveAgent('demo');
    expect(fresh.followup(reminder('sch_2', 'b')).messageId).toBe('msg-1');
  });
});

describe('demo agent', () => {
  it('answers each reminder of a batch and ignores other text', () => {
    const batch = [
      '[SCHEDULE REMINDER BATCH]',
      'This is a scheduled message from the user',
      `reminders_json: ${JSON.stringify([
        { schedule_id: 'sch_1', occurrence_at: '2030-01-07T08:00:00.000Z', reminder_prompt: 'one' },
        { schedule_id: 'sch_2', occurrence_at: '2030-01-07T08:00:00.000Z', reminder_prompt: 'two' },
      ])}`,
    ].join('\n');
    expect(demoReplies(batch)).toEqual(['reminder received: one', 'reminder received: two']);
    expect(demoReplies('hello')).toEqual([]);
    expect(demoReplies('[SCHEDULE REMINDER]\nreminder_prompt_json: {broken')).toEqual([]);
  });
});

// Defects the whole-Host checks found in the reference Host, each pinned by the smallest case
// that showed it (see RELIABILITY.md, defects H1…).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileSessions } from '../../host/sessions/fileSessions.ts';
import type { FollowupMessage } from '../../src/index.ts';

const batch = (entries: Array<[id: string, occurrence: string, prompt: string]>): FollowupMessage => ({
  role: 'user',
  producer: 'schedule',
  text: [
    '[SCHEDULE REMINDER BATCH]',
    'This is a scheduled message from the user',
    `reminders_json: ${JSON.stringify(entries.map(([id, at, prompt]) => ({ schedule_id: id, occurrence_at: at, reminder_prompt: prompt })))}`,
  ].join('\n'),
});
const X = ['sch_1', '2030-01-07T08:00:00.000Z', 'stretch'] as [string, string, string];
const Y = ['sch_2', '2030-01-07T09:00:00.000Z', 'water the plants'] as [string, string, string];
const key = ([id, at]: [string, string, string]) => `${id}@${at}`;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agent-schedule-host-findings-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('H1: a batch redelivered after a crash together with a new reminder', () => {
  it('appends only the new reminder; the one the Session already holds is not repeated', async () => {
    // Before the crash: X was flushed, but its receipt was never written.
    const first = await createFileSessions({ dir, now: () => 0 }).resolveAgent('s1');
    expect(first.followup(batch([X]), { idempotencyKeys: [key(X)] })).toEqual({ messageId: 'msg-1' });
    await first.flush();

    // After the restart X is still due at the same occurrence, and Y has fallen due too.
    const sessions = createFileSessions({ dir, now: () => 0 });
    const again = await sessions.resolveAgent('s1');
    const { messageId } = again.followup(batch([X, Y]), { idempotencyKeys: [key(X), key(Y)] });
    await again.flush();

    const lines = await sessions.transcript('s1');
    const carrying = (k: string) => lines.filter((line) => line.idempotencyKeys?.includes(k)).map((line) => line.messageId);
    expect(carrying(key(X))).toEqual(['msg-1']);
    expect(carrying(key(Y))).toEqual([messageId]);
    const appended = lines.find((line) => line.messageId === messageId);
    expect(appended?.text).toBe(batch([Y]).text);
    // The demo agent answered each reminder once.
    expect(lines.filter((line) => line.role === 'assistant').map((line) => line.text)).toEqual([
      'reminder received: stretch',
      'reminder received: water the plants',
    ]);
  });
});

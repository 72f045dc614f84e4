// Torn tails for the crash trials. A SIGKILL never cuts a write in half — the kernel finishes it
// — but a power loss can: the file then ends in part of a line. After a kill that fell inside a
// Session flush, the trials may add the start of a transcript line to a Session's file; after
// one inside a write, the start of a journal line to `schedule.json.journal`. Neither was ever
// acknowledged, so the restart must ignore it and cut it off before appending again.
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { journalPathFor } from '../../src/adapters/loadDomain.ts';
import { encodeBatch } from '../../src/domain/codec/index.ts';
import type { TaskRow } from '../../src/domain/tasks/types.ts';
import type { KillPhase } from './hostCrashRun.ts';
import { WORKLOAD_SESSIONS } from './hostCrashWorkload.ts';

/** Which file got a torn tail, if any. */
export type TornTail = 'transcript' | 'journal' | null;

/** Appends a torn line where a power loss at `phase` could leave one (half the time). */
export function injectTornTail(dataDir: string, phase: KillPhase, rows: readonly TaskRow[], rand: () => number): TornTail {
  if (rand() < 0.5) return null;
  const cut = (line: string) => line.slice(0, 1 + Math.floor(rand() * (line.length - 1)));
  if (phase === 'inside a Session flush') {
    const sessionId = WORKLOAD_SESSIONS[Math.floor(rand() * WORKLOAD_SESSIONS.length)] ?? 's1';
    const line = JSON.stringify({
      messageId: 'msg-999999',
      role: 'user',
      producer: 'schedule',
      text: '[SCHEDULE REMINDER]\nThis is a scheduled message from the user',
      at: '2030-01-01T00:00:00.000Z',
      idempotencyKeys: ['sch_0@2030-01-01T00:00:00.000Z'],
    });
    mkdirSync(join(dataDir, 'sessions'), { recursive: true });
    appendFileSync(join(dataDir, 'sessions', `${sessionId}.jsonl`), cut(line));
    return 'transcript';
  }
  if (phase === 'inside a write') {
    const row = rows[Math.floor(rand() * rows.length)];
    const batch =
      row === undefined ? { puts: [], deletes: ['sch_1'] } : { puts: [{ ...row, record: { ...row.record, title: 'torn' } }], deletes: [] };
    appendFileSync(journalPathFor(join(dataDir, 'schedule.json')), cut(encodeBatch(batch)));
    return 'journal';
  }
  return null;
}

// Large seeded schedules for the Inspector's scale test and measurement: n hourly tasks spread
// over Sessions, written as a stored schedule.json in a fresh temp folder that a Host opens as its
// data folder — much faster than creating them one by one through the API.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeDocument } from '../../src/domain/codec/index.ts';
import type { TaskRow } from '../../src/domain/tasks/types.ts';

/**
 * Task i (1–n), `sch_<i>`, in Session `session-<i % sessions>`, every hour, first due
 * `((i - 1) % spreadSeconds) + 1` seconds after `start`.
 */
export function hourlyRows(n: number, sessions: number, start: string, spreadSeconds = n): TaskRow[] {
  const base = Date.parse(start);
  return Array.from({ length: n }, (_, k) => {
    const i = k + 1;
    return {
      sessionId: `session-${i % sessions}`,
      status: 'active',
      record: {
        id: `sch_${i}`,
        kind: 'every',
        everySeconds: 3600,
        title: `Task ${i}: review the deploy queue`,
        prompt: `Check project ${i}.`,
        scheduledAt: new Date(base + ((k % spreadSeconds) + 1) * 1000).toISOString(),
      },
      deliveryHistory: { records: [], earlierRecordsUnavailable: false, earlierRecordsPruned: false },
    } as TaskRow;
  });
}

/** A fresh temp folder holding `rows` as schedule.json; the caller removes it. */
export async function seededDataDir(rows: readonly TaskRow[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agent-schedule-seeded-'));
  await writeFile(join(dir, 'schedule.json'), encodeDocument({ tasks: [...rows], nextTaskNumber: rows.length + 1 }));
  return dir;
}

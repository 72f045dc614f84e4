// Builders of realistic stored domains for the service benchmarks: N active tasks of mixed kinds
// spread over Sessions, written as a version-1 schedule.json in a temp folder.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeDocument } from '../../src/domain/codec/index.ts';
import type { TaskRow } from '../../src/domain/tasks/types.ts';

const KINDS = [
  { kind: 'every', everySeconds: 600 },
  { kind: 'daily', time: '09:00:00', timeZone: 'Europe/Berlin' },
  { kind: 'weekly', time: '18:30:00', timeZone: 'America/New_York', weekdays: [1, 3, 5] },
  { kind: 'cron', expression: '*/15 9-17 * * 1-5', timeZone: 'Asia/Shanghai' },
  { kind: 'after', afterSeconds: 3600 },
] as const;

/** N active rows over `sessions` Sessions, targets from `firstTarget` one minute apart. */
export function activeRows(n: number, sessions: number, firstTarget: string): TaskRow[] {
  const base = Date.parse(firstTarget);
  const rows: TaskRow[] = [];
  for (let i = 1; i <= n; i++) {
    const kind = KINDS[i % KINDS.length]!;
    rows.push({
      sessionId: `session-${i % sessions}`,
      status: 'active',
      record: {
        id: `sch_${i}`,
        title: `Task ${i}: review the deploy queue`,
        prompt: `Check the build pipeline of project ${i} and report anything red to the channel.`,
        scheduledAt: new Date(base + i * 60_000).toISOString(),
        ...kind,
        ...('weekdays' in kind ? { weekdays: [...kind.weekdays] } : {}),
      } as TaskRow['record'],
      deliveryHistory: { records: [], earlierRecordsUnavailable: false, earlierRecordsPruned: false },
    });
  }
  return rows;
}

/** Writes the rows as schedule.json in a fresh temp folder; returns its path and a cleanup. */
export function writeDomain(rows: TaskRow[]): { path: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'agent-schedule-bench-'));
  const path = join(dir, 'schedule.json');
  writeFileSync(path, encodeDocument({ tasks: rows, nextTaskNumber: rows.length + 1 }));
  return { path, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export const fmt = (n: number, digits = 1): string => n.toFixed(digits);

export const heapMb = (): number => {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

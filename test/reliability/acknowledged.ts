// What a service has acknowledged, compared with what its JSON domain holds on disk. The
// acknowledged state is read through the service (the catalog plus each task's saved history);
// the disk state is read without the service — document plus journal replayed, exactly what a
// Host restarted after a crash at this moment would open.
import { loadDomainFiles } from '../../src/adapters/loadDomain.ts';
import type { ScheduleService } from '../../src/service.ts';

/** One task as the acknowledged state knows it: catalog entry and saved receipts (oldest first). */
export interface AcknowledgedTask {
  readonly sessionId: string;
  readonly status: string;
  readonly record: unknown;
  readonly lastDelivery: unknown;
  readonly history: readonly unknown[];
}

const byId = (a: AcknowledgedTask, b: AcknowledgedTask): number => {
  const x = (a.record as { id: string }).id;
  const y = (b.record as { id: string }).id;
  return x < y ? -1 : x > y ? 1 : 0;
};

/** Every task the service reports, with its whole saved history. */
export async function acknowledged(svc: ScheduleService): Promise<AcknowledgedTask[]> {
  const out: AcknowledgedTask[] = [];
  for (const entry of await svc.remote.catalog()) {
    const page = (await svc.remote.history({ sessionId: entry.sessionId, id: entry.record.id, limit: 100 })) as {
      records: readonly unknown[];
    };
    out.push({
      sessionId: entry.sessionId,
      status: entry.status,
      record: entry.record,
      lastDelivery: entry.lastDelivery,
      history: [...page.records].reverse(),
    });
  }
  return out.sort(byId);
}

/** The domain a restart would open from the files at `path` right now. */
export async function onDisk(path: string): Promise<AcknowledgedTask[]> {
  const { state } = await loadDomainFiles(path);
  return state
    .snapshot()
    .tasks.map((row) => ({
      sessionId: row.sessionId,
      status: row.status,
      record: row.record,
      lastDelivery: row.lastDelivery,
      history: row.deliveryHistory?.records ?? [],
    }))
    .sort(byId);
}

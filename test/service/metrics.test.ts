// The metrics port (docs/operations.md): a committed delivery reports its lateness, a failed
// attempt its stage and how many reminders it left undelivered, every storage write its duration
// and outcome; the levels (mailbox depth, open Sessions) are read on demand from the registration
// `observe` makes at open and ends at close. A port that throws changes nothing about delivery
// and is logged once.
import { MemoryStorage } from '../../src/adapters/memoryStorage.ts';
import { ScheduleError } from '../../src/domain/errors.ts';
import type { ScheduleConfig } from '../../src/domain/serviceOptions.ts';
import type { FailureStage } from '../../src/domain/tasks/types.ts';
import type { CommitBatch, ScheduleLevels, ScheduleMetrics, ScheduleStorage, StoredDomain } from '../../src/ports.ts';
import { closeAll, create, type Harness, harness, MINUTE, tick } from '../support/harness.ts';

/** A port that keeps what it hears. */
class RecordingMetrics implements ScheduleMetrics {
  readonly lateness: number[] = [];
  readonly failures: Array<{ stage: FailureStage; reminders: number }> = [];
  readonly commits: boolean[] = [];
  readonly readers = new Set<() => ScheduleLevels>();
  stopped = 0;

  delivered(latenessSeconds: number): void {
    this.lateness.push(latenessSeconds);
  }
  attemptFailed(stage: FailureStage, reminders: number): void {
    this.failures.push({ stage, reminders });
  }
  storageCommitted(seconds: number, ok: boolean): void {
    expect(seconds).toBeGreaterThanOrEqual(0);
    this.commits.push(ok);
  }
  observe(read: () => ScheduleLevels): () => void {
    this.readers.add(read);
    return () => {
      this.stopped++;
      this.readers.delete(read);
    };
  }
  levels(): ScheduleLevels {
    const [read, ...more] = [...this.readers];
    expect(more).toEqual([]);
    if (read === undefined) throw new Error('no scheduler is observed');
    return read();
  }
}

/** Memory storage whose commits fail while `down`. */
class SwitchedStorage implements ScheduleStorage {
  private readonly inner = new MemoryStorage();
  down = false;
  open(): Promise<StoredDomain> {
    return this.inner.open();
  }
  async commit(batch: CommitBatch): Promise<void> {
    if (this.down) throw new ScheduleError('persistence_uncertain', 'injected storage failure');
    await this.inner.commit(batch);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

afterEach(closeAll);

/** A service reporting to `metrics` on a storage that can be taken down, with the harness's manual clock and fake Sessions. */
async function rig(metrics: ScheduleMetrics, config: ScheduleConfig = {}): Promise<Harness & { readonly storage: SwitchedStorage }> {
  const storage = new SwitchedStorage();
  return { ...(await harness({ metrics, config, storage })), storage };
}

/** A one-shot due in `seconds`. */
const remind = (h: Harness, sessionId: string, seconds: number) => create(h, sessionId, { after_seconds: seconds });

describe('metrics port', () => {
  it('a reminder delivered 5 s after its target reports lateness 5, and each write one ok commit', async () => {
    const metrics = new RecordingMetrics();
    const r = await rig(metrics);
    await remind(r, 's1', 10);
    expect(metrics.commits).toEqual([true]);
    await r.clock.set('2030-01-01T08:00:15.000Z');
    await r.svc.whenIdle();
    expect(r.sessions.messages('s1')).toHaveLength(1);
    expect(metrics.lateness).toEqual([5]);
    expect(metrics.commits).toEqual([true, true]);
    expect(metrics.failures).toEqual([]);
  });

  it('failed attempts report their stage — flush, resolve, followup, commit — and the reminders they left', async () => {
    const metrics = new RecordingMetrics();
    const r = await rig(metrics, { retry: { initialMs: 60_000, maxMs: 60_000 } });
    await remind(r, 's1', 10);
    await remind(r, 's2', 10);
    r.sessions.failNext('s1', 'flush');
    r.sessions.failNext('s2', 'resolve');
    await tick(r, 10_000); // both attempts at 08:00:10 fail
    expect(metrics.failures).toEqual(
      expect.arrayContaining([
        { stage: 'flush', reminders: 1 },
        { stage: 'resolve', reminders: 1 },
      ]),
    );
    expect(metrics.failures).toHaveLength(2);
    r.sessions.failNext('s1', 'followup');
    await tick(r, MINUTE); // the retries at 08:01:10: s1's append fails, s2 is delivered 60 s late
    expect(metrics.failures.slice(2)).toEqual([{ stage: 'followup', reminders: 1 }]);
    expect(metrics.lateness).toEqual([60]);

    r.storage.down = true;
    await tick(r, MINUTE); // s1 flushes at 08:02:10, but its receipt cannot be written
    expect(metrics.failures.slice(3)).toEqual([{ stage: 'commit', reminders: 1 }]);
    expect(metrics.commits.at(-1)).toBe(false);
    r.storage.down = false;
    await tick(r, MINUTE); // the receipt's write is retried, not the delivery
    expect(r.sessions.messages('s1')).toHaveLength(1);
    expect(metrics.lateness).toEqual([60, 120]);
    expect(metrics.commits.at(-1)).toBe(true);
  });

  it('levels are read on demand: the calls waiting in the mailbox and the Sessions with live tasks', async () => {
    const metrics = new RecordingMetrics();
    const r = await rig(metrics);
    expect(metrics.levels()).toEqual({ mailboxDepth: 0, openSessions: 0 });
    // Three calls sent at once: the first runs, two wait behind it.
    const calls = ['a', 'b', 'c'].map((s) => remind(r, s, 60));
    expect(metrics.levels().mailboxDepth).toBe(3);
    await Promise.all(calls);
    await remind(r, 'a', 120);
    expect(metrics.levels()).toEqual({ mailboxDepth: 0, openSessions: 3 });
    await tick(r, MINUTE); // b and c have nothing left; a still has a task
    expect(metrics.levels()).toEqual({ mailboxDepth: 0, openSessions: 1 });
    await r.svc.close();
    expect(metrics.readers.size).toBe(0);
    expect(metrics.stopped).toBe(1);
  });

  it('a port that throws is logged once and delivery goes on', async () => {
    const throwing: ScheduleMetrics = {
      delivered: () => {
        throw new Error('metrics down');
      },
      storageCommitted: () => {
        throw new Error('metrics down');
      },
      observe: () => {
        throw new Error('metrics down');
      },
    };
    const r = await rig(throwing);
    await remind(r, 's1', 10);
    await remind(r, 's1', 20);
    await tick(r, 20_000);
    expect(r.sessions.messages('s1')).toHaveLength(2);
    expect(await r.svc.remote.counts()).toMatchObject({ all: { scheduled: 0, ended: 2 } });
    expect(r.logs.filter((l) => l.level === 'error' && l.msg.includes('metrics port'))).toHaveLength(1);
  });

  it('health() is open until close() is called', async () => {
    const r = await rig({});
    expect(r.svc.health()).toEqual({ open: true });
    const closing = r.svc.close();
    expect(r.svc.health()).toEqual({ open: false });
    await closing;
    expect(r.svc.health()).toEqual({ open: false });
  });
});

// Storage faults under a whole service, injected through the JSON storage's file-system seam:
// ENOSPC and EIO on a journal write and on its fsync, a first change whose directory fsync fails, and —
// with compaction after every write — a failing rename of schedule.json, a full disk while the
// temp file is written, a failing fsync of it or of the directory. While a journal fault lasts,
// every change answers `persistence_uncertain` (tools, remote, archive), due reminders are
// flushed to their Sessions but nothing is recorded, and the acknowledged state never moves; the
// files on disk hold exactly what was acknowledged (after a failed fsync, once the next write has
// cut off the uncertain lines). Once the fault clears, the
// retry records each reminder once, the refused changes go through, and a restart opens exactly
// the acknowledged domain. A compaction fault never fails a change: the journal keeps it.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { jsonFileStorage } from '../../src/adapters/jsonFileStorage.ts';
import { journalPathFor } from '../../src/adapters/loadDomain.ts';
import { closeAll, closeHarness, create, type Harness, harness, tempDir, tick } from '../support/harness.ts';
import { acknowledged, onDisk } from './acknowledged.ts';
import { exactly, FaultFs, type FsErrorCode, type FsOperation, PATHS } from './faultFs.ts';

afterEach(closeAll);

const T0 = '2030-01-01T08:00:00.000Z';
const RETRY = { initialMs: 1000, maxMs: 4000 };
const code = (value: unknown): unknown => (value as { code?: unknown }).code;

interface Domain {
  readonly h: Harness;
  readonly fs: FaultFs;
  readonly path: string;
  readonly dir: string;
  readonly compactionErrors: unknown[];
}

async function openDomain(compactEveryWrite: boolean): Promise<Domain> {
  const dir = tempDir();
  const path = join(dir, 'schedule.json');
  const fs = new FaultFs();
  const compactionErrors: unknown[] = [];
  const storage = jsonFileStorage({
    path,
    fs,
    onCompactionError: (e) => compactionErrors.push(e),
    ...(compactEveryWrite ? { compaction: { minBytes: 0, ratio: 0 } } : {}),
  });
  const h = await harness({ start: T0, storage, config: { retry: RETRY } });
  return { h, fs, path, dir, compactionErrors };
}

/** A: a one-shot and a recurring task due in a minute, one to edit; B: a one-shot due in a minute and one to edit. */
async function seed(h: Harness) {
  return {
    aOnce: await create(h, 'A', { after_seconds: 60, prompt: 'A once' }),
    aEvery: await create(h, 'A', { every_seconds: 60, prompt: 'A every' }),
    aEdit: await create(h, 'A', { daily: { time: '09:00:00', time_zone: 'Europe/London' } }),
    bOnce: await create(h, 'B', { after_seconds: 60, prompt: 'B once' }),
    bEdit: await create(h, 'B', { cron: { expression: '0 9 * * 1-5', time_zone: 'America/New_York' } }),
  };
}

/**
 * Every kind of change, made while storage fails: each must answer persistence_uncertain and
 * change nothing the service reports. When the failure left the data short of the file
 * (`exactOnDisk`), the files still hold exactly the acknowledged domain; after a failed fsync
 * the uncertain lines may be in the file until the next write cuts them off — a crash then may
 * or may not keep them, which is what `persistence_uncertain` says.
 */
async function changesAreRefused(d: Domain, ids: Awaited<ReturnType<typeof seed>>, exactOnDisk: boolean) {
  const { h } = d;
  const before = await acknowledged(h.svc);
  const edit = (await h.svc.remote.catalog()).find((e) => e.record.id === ids.bEdit.id);
  const answers = [
    await h.svc.callTool('A', 'schedule_create', { title: 't', prompt: 'p', after_seconds: 30 }),
    await h.svc.callTool('A', 'schedule_update', { id: ids.aEdit.id, title: 'renamed' }),
    await h.svc.callTool('B', 'schedule_update', { id: ids.bEdit.id, change: { kind: 'every', every_seconds: 600 } }),
    await h.svc.callTool('A', 'schedule_delete', { id: ids.aEdit.id }),
    await h.svc.remote.update({ sessionId: 'B', id: ids.bEdit.id, expected: edit?.record, prompt: 'changed' }),
    await h.svc.remote.delete({ sessionId: 'B', id: ids.bEdit.id }),
  ];
  for (const answer of answers) expect(code(answer)).toBe('persistence_uncertain');
  expect(answers[3]).toMatchObject({ deleted: false });
  await expect(h.svc.archive.sessionStop('A')).rejects.toMatchObject({ code: 'persistence_uncertain' });
  expect(await acknowledged(h.svc)).toEqual(before);
  if (exactOnDisk) expect(await onDisk(d.path)).toEqual(before);
}

/** After the fault: the refused changes go through. */
async function changesSucceed(h: Harness, ids: Awaited<ReturnType<typeof seed>>) {
  expect(code(await h.svc.callTool('A', 'schedule_create', { title: 't', prompt: 'p', after_seconds: 30 }))).toBeUndefined();
  expect(await h.svc.callTool('A', 'schedule_update', { id: ids.aEdit.id, title: 'renamed' })).toMatchObject({ title: 'renamed' });
  expect(await h.svc.callTool('B', 'schedule_delete', { id: ids.bEdit.id })).toEqual({ id: ids.bEdit.id, deleted: true });
}

/** Closes the service and opens the same files with a healthy file system: exactly `expected`. */
async function reopenEquals(d: Domain, expected: unknown) {
  await closeHarness(d.h).catch(() => undefined);
  const again = await harness({ start: T0, storage: jsonFileStorage({ path: d.path }) });
  expect(await acknowledged(again.svc)).toEqual(expected);
  await closeHarness(again);
  expect(existsSync(journalPathFor(d.path))).toBe(false);
}

const journalFaults: Array<[FsOperation, FsErrorCode]> = [
  ['write', 'ENOSPC'],
  ['write', 'EIO'],
  ['sync', 'ENOSPC'],
  ['sync', 'EIO'],
];

describe('a failing journal', () => {
  it.each(journalFaults)('%s %s: nothing reported durable that is not; all recovered once it clears', async (operation, errno) => {
    const d = await openDomain(false);
    const { h, fs } = d;
    const ids = await seed(h);
    fs.fail(operation, PATHS.journal, errno);

    await changesAreRefused(d, ids, operation === 'write');
    const frozen = await acknowledged(h.svc);
    await tick(h, 60_000); // due: A's two tasks (one one-shot, one batch) and B's one-shot; their commits fail
    await tick(h, 1000); // first retry, fails again
    expect(await acknowledged(h.svc)).toEqual(frozen);
    if (operation === 'write') expect(await onDisk(d.path)).toEqual(frozen);
    expect(h.sessions.messages('A').length).toBeGreaterThanOrEqual(2);

    fs.clear();
    await tick(h, 4000);
    const keysA = [`${ids.aOnce.id}@2030-01-01T08:01:00.000Z`, `${ids.aEvery.id}@2030-01-01T08:01:00.000Z`];
    expect(new Set(h.sessions.messages('A').flatMap((m) => m.idempotencyKeys))).toEqual(new Set(keysA));
    expect(new Set(h.sessions.messages('B').flatMap((m) => m.idempotencyKeys))).toEqual(
      new Set([`${ids.bOnce.id}@2030-01-01T08:01:00.000Z`]),
    );
    const after = await acknowledged(h.svc);
    for (const id of [ids.aOnce.id, ids.aEvery.id, ids.bOnce.id]) {
      const task = after.find((t) => (t.record as { id: string }).id === id);
      expect(task?.history).toHaveLength(1); // recorded once, whatever the Session saw
    }
    expect(after.find((t) => (t.record as { id: string }).id === ids.aEvery.id)?.record).toMatchObject({
      scheduledAt: '2030-01-01T08:02:00.000Z',
    });

    await changesSucceed(h, ids);
    const final = await acknowledged(h.svc);
    expect(await onDisk(d.path)).toEqual(final);
    expect(fs.injectedCount).toBeGreaterThan(0);
    await reopenEquals(d, final);
  });

  it('a first change whose directory fsync fails (the document it writes first, then the journal) is refused; the next one goes through', async () => {
    const d = await openDomain(false);
    d.fs.fail('sync', exactly(d.dir), 'EIO', 1);
    expect(code(await d.h.svc.callTool('A', 'schedule_create', { title: 't', prompt: 'p', after_seconds: 60 }))).toBe(
      'persistence_uncertain',
    );
    expect(await acknowledged(d.h.svc)).toEqual([]);
    expect(await onDisk(d.path)).toEqual([]);
    await create(d.h, 'A', { after_seconds: 60 });
    const final = await acknowledged(d.h.svc);
    expect(final).toHaveLength(1);
    expect(await onDisk(d.path)).toEqual(final);
    await reopenEquals(d, final);
  });
});

const compactionFaults: Array<[string, FsOperation, RegExp | 'directory', FsErrorCode]> = [
  ['the rename of schedule.json', 'rename', PATHS.document, 'EIO'],
  ['a full disk while the new document is written', 'write', PATHS.compactionTemp, 'ENOSPC'],
  ['the fsync of the new document', 'sync', PATHS.compactionTemp, 'EIO'],
  ['the directory fsync after the rename', 'sync', 'directory', 'EIO'],
];

describe('a failing compaction (schedule.json rewritten after every write)', () => {
  it.each(compactionFaults)('%s: every change still succeeds and is durable in the journal', async (_name, operation, pattern, errno) => {
    const d = await openDomain(true);
    const { h, fs } = d;
    const ids = await seed(h);
    fs.fail(operation, pattern === 'directory' ? exactly(d.dir) : pattern, errno);

    await changesSucceed(h, ids);
    await tick(h, 60_000);
    expect(h.sessions.messages('A')).toHaveLength(3); // two one-shots (one created above) and the batch
    const during = await acknowledged(h.svc);
    expect(during.filter((t) => t.history.length === 1)).toHaveLength(4);
    expect(await onDisk(d.path)).toEqual(during);
    expect(d.compactionErrors.length).toBeGreaterThan(0);

    // Closing while the fault lasts cannot rewrite schedule.json: close reports it, the journal keeps everything.
    await expect(closeHarness(h)).rejects.toMatchObject({ code: 'persistence_uncertain' });
    expect(existsSync(journalPathFor(d.path))).toBe(true);
    expect(await onDisk(d.path)).toEqual(during);
    fs.clear();
    await reopenEquals(d, during);
  });
});

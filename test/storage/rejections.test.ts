// A bad domain rejects the open with corrupt_schedule_log — one test per rule of the strict
// decoder — naming the task and the field, and leaves every file byte-for-byte unchanged (the
// lock taken for the attempt is released). Each case edits one member of a valid document.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jsonFileStorage } from '../../src/adapters/jsonFileStorage.ts';
import { ScheduleError } from '../../src/domain/errors.ts';
import { deliveredRow, receipt, row } from './fixtures.ts';
import { filesIn, removeTempDirs, tempDir } from './tempFiles.ts';

afterEach(removeTempDirs);

type Path = ReadonlyArray<string | number>;
type Container = Record<string | number, unknown>;

/** A valid document: sch_1 every, sch_2 cron with 3 delivered receipts, sch_3 weekly. */
const validDoc = (): Container =>
  structuredClone({ version: 1, nextTaskNumber: 4, tasks: [row(1), deliveredRow(2, 3, 'cron'), row(3, 'weekly')] });

const parentOf = (doc: Container, path: Path): [Container, string | number] => {
  let node: unknown = doc;
  for (const key of path.slice(0, -1)) node = (node as Container)[key];
  return [node as Container, path.at(-1) as string | number];
};

/** The document as JSON after setting the member at `path` (undefined removes it). */
function edited(path: Path, value: unknown): string {
  const doc = validDoc();
  const [parent, key] = parentOf(doc, path);
  if (value === undefined) delete parent[key];
  else parent[key] = value;
  return JSON.stringify(doc);
}

/** The value at `path` in the valid document. */
const valueAt = (path: Path): unknown => {
  const [parent, key] = parentOf(validDoc(), path);
  return parent[key];
};

async function expectRejected(content: string | Buffer, ...fragments: string[]) {
  const dir = tempDir();
  const path = join(dir, 'schedule.json');
  writeFileSync(path, content);
  const before = filesIn(dir);
  const error = await jsonFileStorage({ path })
    .open()
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ScheduleError);
  expect(error).toMatchObject({ code: 'corrupt_schedule_log' });
  for (const fragment of fragments) expect((error as Error).message).toContain(fragment);
  expect(filesIn(dir)).toEqual(before);
}

describe('a bad schedule.json rejects the open and stays unchanged', () => {
  it('the unedited document opens (control)', async () => {
    const path = join(tempDir(), 'schedule.json');
    writeFileSync(path, JSON.stringify(validDoc()));
    const storage = jsonFileStorage({ path });
    expect((await storage.open()).tasks).toHaveLength(3);
    await storage.close();
  });

  it('unreadable file (a directory where schedule.json should be)', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'schedule.json'));
    const before = filesIn(dir);
    await expect(jsonFileStorage({ path: join(dir, 'schedule.json') }).open()).rejects.toMatchObject({ code: 'corrupt_schedule_log' });
    expect(filesIn(dir)).toEqual(before);
  });

  it('malformed JSON', () => expectRejected('{"version": 1, "tasks": [', 'not valid JSON'));
  it('invalid UTF-8', () => expectRejected(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]), 'UTF-8'));
  it('not an object', () => expectRejected('[1, 2]', 'document'));
  it('unknown version', () => expectRejected(edited(['version'], 99), 'version', '99'));
  it('missing version', () => expectRejected(JSON.stringify({ tasks: [] }), 'version'));
  it('unknown top-level field', () => expectRejected(edited(['extra'], true), 'extra'));
  it('missing tasks', () => expectRejected('{"version":1}', 'tasks is missing'));
  it('nextTaskNumber not above a task number in use', () => expectRejected(edited(['nextTaskNumber'], 2), 'nextTaskNumber'));
  it('nextTaskNumber not a positive integer', () => expectRejected(edited(['nextTaskNumber'], 4.5), 'nextTaskNumber'));
  it('unknown field on a row', () => expectRejected(edited(['tasks', 0, 'owner'], 'x'), 'task "sch_1"', 'owner'));
  it('unknown field on a record', () =>
    expectRejected(edited(['tasks', 0, 'record', 'surprise'], true), 'task "sch_1"', 'record.surprise'));
  it('a field of another kind on a record', () =>
    expectRejected(edited(['tasks', 0, 'record', 'afterSeconds'], 60), 'record.afterSeconds'));
  it('missing sessionId', () => expectRejected(edited(['tasks', 2, 'sessionId'], undefined), 'task "sch_3"', 'sessionId is missing'));
  it('bad status', () => expectRejected(edited(['tasks', 0, 'status'], 'paused'), 'status'));
  it('bad id', () => expectRejected(edited(['tasks', 0, 'record', 'id'], 'has space'), 'tasks[0]', 'record.id'));
  it('duplicate id', () => expectRejected(edited(['tasks', 2, 'record', 'id'], 'sch_1'), 'tasks[2]', 'record.id', 'repeats'));
  it('title missing', () => expectRejected(edited(['tasks', 1, 'record', 'title'], undefined), 'task "sch_2"', 'record.title is missing'));
  it('title blank', () => expectRejected(edited(['tasks', 1, 'record', 'title'], '   '), 'task "sch_2"', 'record.title'));
  it('title untrimmed', () => expectRejected(edited(['tasks', 1, 'record', 'title'], ' Task '), 'record.title'));
  it('title over 120 characters', () => expectRejected(edited(['tasks', 1, 'record', 'title'], 'x'.repeat(121)), 'record.title'));
  it('blank prompt', () => expectRejected(edited(['tasks', 0, 'record', 'prompt'], ''), 'record.prompt'));
  it('unknown kind', () => expectRejected(edited(['tasks', 0, 'record', 'kind'], 'hourly'), 'record.kind'));
  it('after with a zero delay', () =>
    expectRejected(
      edited(['tasks', 0], { ...row(1, 'after'), record: { ...row(1, 'after').record, afterSeconds: 0 } }),
      'record.afterSeconds',
    ));
  it('every below 60 seconds', () => expectRejected(edited(['tasks', 0, 'record', 'everySeconds'], 59), 'record.everySeconds'));
  it('every not an integer', () => expectRejected(edited(['tasks', 0, 'record', 'everySeconds'], '3600'), 'record.everySeconds'));
  it('daily without a zone', () =>
    expectRejected(
      edited(['tasks', 0], { ...row(1, 'daily'), record: { ...row(1, 'daily').record, timeZone: undefined } }),
      'record.timeZone is missing',
    ));
  it('non-canonical cron expression', () =>
    expectRejected(edited(['tasks', 1, 'record', 'expression'], '*/15,*/20 9-17 * * 1-7/2'), 'task "sch_2"', 'record.expression'));
  it('invalid cron expression', () => expectRejected(edited(['tasks', 1, 'record', 'expression'], '0 0 * * MON'), 'record.expression'));
  it.each(['9:00:00', '09:00', '18:00:00.000', '18:00:00.5', '24:00:00'])('non-canonical time %j', (time) =>
    expectRejected(edited(['tasks', 2, 'record', 'time'], time), 'task "sch_3"', 'record.time'),
  );
  it.each([[[5, 1]], [[1, 1]], [[]], [[0, 3]], [[1, 8]], [['1']]])('bad weekday set %j', (weekdays) =>
    expectRejected(edited(['tasks', 2, 'record', 'weekdays'], weekdays), 'record.weekdays'),
  );
  it.each(['EST', '+08:00', 'europe/london', 'Mars/Base', 'GMT'])('bad zone %j', (zone) =>
    expectRejected(edited(['tasks', 2, 'record', 'timeZone'], zone), 'record.timeZone'),
  );
  it.each([
    '2030-01-01T09:00:00Z',
    '2030-01-01T09:00:00.000+00:00',
    '2030-02-30T09:00:00.000Z',
    '+012030-01-01T09:00:00.000Z',
    1893488400000,
  ])('bad scheduledAt %j', (scheduledAt) =>
    expectRejected(edited(['tasks', 0, 'record', 'scheduledAt'], scheduledAt), 'record.scheduledAt'),
  );
  it('bad receipt deliveredAt', () =>
    expectRejected(edited(['tasks', 1, 'lastDelivery', 'deliveredAt'], 'yesterday'), 'lastDelivery.deliveredAt'));
  it('blank message id', () =>
    expectRejected(edited(['tasks', 1, 'deliveryHistory', 'records', 0, 'messageId'], ''), 'deliveryHistory.records[0].messageId'));
  it('unknown field on a receipt', () => expectRejected(edited(['tasks', 1, 'lastDelivery', 'extra'], 1), 'lastDelivery.extra'));
  it('unknown field on a history', () => expectRejected(edited(['tasks', 1, 'deliveryHistory', 'extra'], 1), 'deliveryHistory.extra'));
  it('history flag not a boolean', () =>
    expectRejected(edited(['tasks', 1, 'deliveryHistory', 'earlierRecordsPruned'], 'yes'), 'earlierRecordsPruned'));
  it('duplicate message ids in history', () =>
    expectRejected(
      edited(
        ['tasks', 1, 'deliveryHistory', 'records', 0, 'messageId'],
        valueAt(['tasks', 1, 'deliveryHistory', 'records', 1, 'messageId']),
      ),
      'task "sch_2"',
      'deliveryHistory.records[1].messageId',
      'repeats',
    ));
  it('latest history receipt differs from lastDelivery', () =>
    expectRejected(edited(['tasks', 1, 'lastDelivery'], receipt(77)), 'task "sch_2"', 'deliveryHistory.records', 'lastDelivery'));
  it('history with receipts but no lastDelivery', () =>
    expectRejected(edited(['tasks', 1, 'lastDelivery'], undefined), 'deliveryHistory.records'));
  it('lastDelivery with an empty history', () =>
    expectRejected(edited(['tasks', 1, 'deliveryHistory', 'records'], []), 'deliveryHistory.records'));

  // Paused and run-now rows, run-now and coalesced receipts.
  const EARLY = '2030-01-01T00:00:00.000Z';
  const coalescedAt = (path: Path, members: Record<string, unknown>) => {
    const doc = validDoc();
    const [parent, key] = parentOf(doc, path);
    parent[key] = { ...(parent[key] as Container), ...members };
    return JSON.stringify(doc);
  };
  it('a paused, run-now row with run-now and coalesced receipts opens (control)', async () => {
    const doc = validDoc();
    const tasks = doc.tasks as Container[];
    Object.assign(tasks[0] as Container, { pausedAt: EARLY, triggeredAt: '2030-01-01T00:00:01.000Z' });
    const history = (tasks[1] as Container).deliveryHistory as { records: Container[] };
    Object.assign(history.records[1] as Container, { trigger: 'manual' });
    for (const receipt of [history.records[2], (tasks[1] as Container).lastDelivery] as Container[]) {
      Object.assign(receipt, { trigger: 'manual', missed: 2, firstMissed: EARLY });
    }
    const path = join(tempDir(), 'schedule.json');
    writeFileSync(path, JSON.stringify(doc));
    const storage = jsonFileStorage({ path });
    const opened = await storage.open();
    expect(opened.tasks[0]).toMatchObject({ pausedAt: EARLY, triggeredAt: '2030-01-01T00:00:01.000Z' });
    expect(opened.tasks[1]?.lastDelivery).toMatchObject({ trigger: 'manual', missed: 2, firstMissed: EARLY });
    await storage.close();
  });
  it.each(['2030-01-01T09:00:00Z', '2030-02-30T09:00:00.000Z', '', 1893488400000, null])('bad pausedAt %j', (pausedAt) =>
    expectRejected(edited(['tasks', 0, 'pausedAt'], pausedAt), 'task "sch_1"', 'pausedAt must be a canonical UTC instant'),
  );
  it('bad triggeredAt', () =>
    expectRejected(edited(['tasks', 0, 'triggeredAt'], '2030-01-01 09:00'), 'task "sch_1"', 'triggeredAt must be a canonical UTC instant'));
  it.each(['pausedAt', 'triggeredAt'])('%s on an inactive row', (field) =>
    expectRejected(
      edited(['tasks', 0], { ...row(1), status: 'inactive', [field]: EARLY }),
      'task "sch_1"',
      `${field} cannot be stored on an inactive row`,
    ),
  );
  it.each(['auto', 'Manual', true, null])('receipt trigger %j, not "manual"', (trigger) =>
    expectRejected(edited(['tasks', 1, 'lastDelivery', 'trigger'], trigger), 'task "sch_2"', 'lastDelivery.trigger must be "manual"'),
  );
  it.each([0, -1, 1.5, '3', null, Number.MAX_SAFE_INTEGER + 1])('receipt missed %j', (missed) =>
    expectRejected(
      coalescedAt(['tasks', 1, 'deliveryHistory', 'records', 0], { missed, firstMissed: EARLY }),
      'task "sch_2"',
      'deliveryHistory.records[0].missed must be a safe integer of at least 1',
    ),
  );
  it('receipt firstMissed without missed', () =>
    expectRejected(
      coalescedAt(['tasks', 1, 'lastDelivery'], { firstMissed: EARLY }),
      'lastDelivery.firstMissed cannot be stored without missed',
    ));
  it('receipt missed without firstMissed', () =>
    expectRejected(coalescedAt(['tasks', 1, 'lastDelivery'], { missed: 2 }), 'lastDelivery.firstMissed is missing'));
  it('receipt firstMissed not canonical', () =>
    expectRejected(
      coalescedAt(['tasks', 1, 'lastDelivery'], { missed: 2, firstMissed: '2030-01-01T00:00:00Z' }),
      'lastDelivery.firstMissed must be a canonical UTC instant',
    ));
  it.each(['at', 'after'])('receipt firstMissed %s its scheduledAt', (when) => {
    const scheduledAt = valueAt(['tasks', 1, 'deliveryHistory', 'records', 1, 'scheduledAt']) as string;
    const firstMissed = when === 'at' ? scheduledAt : new Date(Date.parse(scheduledAt) + 1).toISOString();
    return expectRejected(
      coalescedAt(['tasks', 1, 'deliveryHistory', 'records', 1], { missed: 1, firstMissed }),
      'task "sch_2"',
      "deliveryHistory.records[1].firstMissed must be before the receipt's scheduledAt",
    );
  });
  it('latest history receipt differs from lastDelivery only in missed', () =>
    expectRejected(
      coalescedAt(['tasks', 1, 'lastDelivery'], { missed: 2, firstMissed: EARLY }),
      'deliveryHistory.records',
      'differs from lastDelivery',
    ));
});

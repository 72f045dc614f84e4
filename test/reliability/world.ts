// The fixed world the reliability checks start from: a clock reading, two Sessions `A` and `B`
// each holding active tasks of every kind (and an ended one) with saved delivery history, and a
// guard that notices prototype pollution. Also the documented failure codes of each tool.
import { encodeDocument } from '../../src/domain/codec/index.ts';
import { ERROR_CODES, type ErrorCode } from '../../src/domain/errors.ts';
import type { DeliveryReceipt, ScheduleRecord, TaskRow } from '../../src/domain/tasks/types.ts';
import { KINDS, recordOfKind } from '../storage/fixtures.ts';

export const T0 = '2030-01-01T08:00:00.000Z';
export const T0_MS = Date.parse(T0);
const iso = (ms: number) => new Date(ms).toISOString();

const DAY = 86_400_000;

/** A record of `kind` numbered `n` (id `sch_<n>`), as the storage fixtures make it, with a prompt that names it. */
const recordOf = (kind: ScheduleRecord['kind'], n: number): ScheduleRecord => ({
  ...recordOfKind(kind, n),
  title: `Task sch_${n}`,
  prompt: `Prompt of sch_${n}`,
});

const receipt = (id: string, k: number): DeliveryReceipt => ({
  scheduledAt: iso(T0_MS - (10 - k) * DAY),
  deliveredAt: iso(T0_MS - (10 - k) * DAY + 250),
  messageId: `m-${id}-${k}`,
  prompt: `Prompt of ${id}`,
});

function rowOf(sessionId: string, kind: ScheduleRecord['kind'], n: number, delivered: number): TaskRow {
  const records = Array.from({ length: delivered }, (_, k) => receipt(`sch_${n}`, k));
  const last = records.at(-1);
  const base: TaskRow = {
    sessionId,
    status: 'active',
    record: recordOf(kind, n),
    deliveryHistory: { records, earlierRecordsUnavailable: false, earlierRecordsPruned: false },
  };
  return last === undefined ? base : { ...base, lastDelivery: last };
}

/** Rows of Session A (`sch_1`…`sch_6`, `sch_7` ended) and Session B (`sch_8`…`sch_13`, `sch_14` ended). */
export function worldRows(): TaskRow[] {
  const rows: TaskRow[] = [];
  let n = 1;
  for (const sessionId of ['A', 'B']) {
    KINDS.forEach((kind, i) => {
      rows.push(rowOf(sessionId, kind, n, i % 3));
      n++;
    });
    rows.push({ ...rowOf(sessionId, 'at', n, 1), status: 'inactive' });
    n++;
  }
  return rows;
}

/** The world as schedule.json text. */
export const worldDocument = (): string => encodeDocument({ tasks: worldRows(), nextTaskNumber: 15 });

export const IDS_OF_A = ['sch_1', 'sch_2', 'sch_3', 'sch_4', 'sch_5', 'sch_6', 'sch_7'];
export const IDS_OF_B = ['sch_8', 'sch_9', 'sch_10', 'sch_11', 'sch_12', 'sch_13', 'sch_14'];

/** What a create can be refused with: the `invalid_*` codes, `not_future` and `time_out_of_range`. */
const CREATE_CODES: ErrorCode[] = ERROR_CODES.filter((c) => c.startsWith('invalid_') || c === 'not_future' || c === 'time_out_of_range');

/** The failure codes a tool may answer with when storage works (docs/management.md, docs/errors.md). */
export const TOOL_CODES: Readonly<Record<string, readonly ErrorCode[]>> = {
  schedule_create: CREATE_CODES,
  schedule_list: ['invalid_selector'],
  schedule_update: [...CREATE_CODES, 'schedule_not_found', 'schedule_ended'],
  schedule_delete: ['invalid_selector', 'schedule_not_found'],
};

/** Codes for a name that is not one of the four tools. */
export const UNKNOWN_TOOL_CODES: readonly ErrorCode[] = ['unknown_tool'];

const PROTOTYPES: ReadonlyArray<readonly [string, object]> = [
  ['Object.prototype', Object.prototype],
  ['Array.prototype', Array.prototype],
  ['Function.prototype', Function.prototype],
  ['String.prototype', String.prototype],
  ['Number.prototype', Number.prototype],
  ['Boolean.prototype', Boolean.prototype],
];

/** Own members of the built-in prototypes (names and values), to compare before and after. */
function prototypeSnapshot(): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [name, proto] of PROTOTYPES) {
    for (const key of Reflect.ownKeys(proto)) {
      const d = Object.getOwnPropertyDescriptor(proto, key);
      out.set(`${name}.${String(key)}`, d?.get ?? d?.set ?? d?.value);
    }
  }
  return out;
}

/** Detects prototype pollution: `check()` throws when a built-in prototype gained or changed a member. */
export class PollutionGuard {
  private readonly before = prototypeSnapshot();

  check(): void {
    const probe = {} as Record<string, unknown>;
    if (probe.polluted !== undefined || ([] as unknown as Record<string, unknown>).polluted !== undefined) {
      throw new Error('prototype pollution: ({}).polluted is defined');
    }
    if (Object.getPrototypeOf(probe) !== Object.prototype) throw new Error('prototype pollution: {} has a changed prototype');
    const now = prototypeSnapshot();
    if (now.size !== this.before.size)
      throw new Error(`prototype pollution: built-in prototypes now have ${now.size - this.before.size} more members`);
    for (const [key, value] of now) {
      if (this.before.get(key) !== value) throw new Error(`prototype pollution: ${key} changed`);
    }
  }
}

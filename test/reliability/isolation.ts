// Isolation between Sessions as a property. Session B holds tasks of every kind with saved
// delivery history; fast-check generates sequences of calls made on behalf of Session A — the
// four model tools (with pauses), the remote namespace with A's Session id (pause, resume and run
// now included), and archive admission — aimed at
// B's task ids, at near misses of them (padding, case, leading zeros, a NUL) and at A's own
// tasks. No call may list, update or delete a task of B: every answer that names a task of B or
// quotes its prompt is a failure, and after the sequence B's rows in the stored document — record,
// status, receipt and history — are byte-for-byte what they were.
import fc from 'fast-check';
import { MemoryStorage } from '../../src/adapters/memoryStorage.ts';
import type { ScheduleRecord } from '../../src/domain/tasks/types.ts';
import { createScheduleService, type ScheduleService } from '../../src/service.ts';
import { createFakeSessions, createManualClock } from '../../src/testing.ts';
import { IDS_OF_A, IDS_OF_B, T0, worldDocument, worldRows } from './world.ts';

const B_RECORDS = new Map(worldRows().map((row) => [row.record.id, row.record] as const));

/** B's ids, and strings close to them. */
const nearMisses = (id: string): string[] => [id, ` ${id}`, `${id} `, id.toUpperCase(), id.replace('_', '_0'), `${id}\u0000`, `${id}/..`];
const aimedIds = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...IDS_OF_B) },
  { weight: 2, arbitrary: fc.constantFrom(...IDS_OF_B.flatMap(nearMisses)) },
  { weight: 2, arbitrary: fc.constantFrom(...IDS_OF_A, 'sch_15', 'sch_16', 'sch_17') },
);

const timing = fc.constantFrom<Record<string, unknown>>(
  { after_seconds: 600 },
  { every_seconds: 3600 },
  { daily: { time: '09:00:00', time_zone: 'Europe/London' } },
  { weekly: { time: '18:00:00', time_zone: 'UTC', weekdays: [1, 5] } },
  { cron: { expression: '*/15 9-17 * * 1-5', time_zone: 'Australia/Lord_Howe' } },
  { at: '2031-01-01T00:00:00Z' },
);
const change = fc.constantFrom<Record<string, unknown> | undefined>(
  undefined,
  { kind: 'every', every_seconds: 60 },
  { kind: 'at', at: '2031-06-01T00:00:00Z' },
  { kind: 'daily', time: '07:00:00', time_zone: 'America/New_York' },
  { kind: 'cron', expression: '0 0 * * *', time_zone: 'UTC' },
);

/** One call made on behalf of Session A. */
type Call =
  | { readonly op: 'create'; readonly timing: Record<string, unknown> }
  | { readonly op: 'list' }
  | { readonly op: 'update'; readonly id: string; readonly change: Record<string, unknown> | undefined }
  | { readonly op: 'pauseTool'; readonly id: string; readonly paused: boolean }
  | { readonly op: 'remoteRunState'; readonly id: string; readonly method: 'pause' | 'resume' | 'trigger' }
  | { readonly op: 'delete'; readonly id: string }
  | { readonly op: 'remoteUpdate'; readonly id: string; readonly change: Record<string, unknown> | undefined }
  | { readonly op: 'remoteDelete'; readonly id: string }
  | { readonly op: 'remoteHistory'; readonly id: string }
  | { readonly op: 'remoteList' }
  | { readonly op: 'activity' }
  | { readonly op: 'stop' };

const callArb: fc.Arbitrary<Call> = fc.oneof(
  { weight: 2, arbitrary: timing.map((t) => ({ op: 'create' as const, timing: t })) },
  { weight: 1, arbitrary: fc.constant({ op: 'list' as const }) },
  { weight: 4, arbitrary: fc.tuple(aimedIds, change).map(([id, c]) => ({ op: 'update' as const, id, change: c })) },
  { weight: 3, arbitrary: aimedIds.map((id) => ({ op: 'delete' as const, id })) },
  { weight: 2, arbitrary: fc.tuple(aimedIds, fc.boolean()).map(([id, paused]) => ({ op: 'pauseTool' as const, id, paused })) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(aimedIds, fc.constantFrom('pause' as const, 'resume' as const, 'trigger' as const))
      .map(([id, method]) => ({ op: 'remoteRunState' as const, id, method })),
  },
  { weight: 2, arbitrary: fc.tuple(aimedIds, change).map(([id, c]) => ({ op: 'remoteUpdate' as const, id, change: c })) },
  { weight: 2, arbitrary: aimedIds.map((id) => ({ op: 'remoteDelete' as const, id })) },
  { weight: 2, arbitrary: aimedIds.map((id) => ({ op: 'remoteHistory' as const, id })) },
  { weight: 1, arbitrary: fc.constant({ op: 'remoteList' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'activity' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'stop' as const }) },
);

async function perform(svc: ScheduleService, call: Call): Promise<unknown> {
  const A = 'A';
  switch (call.op) {
    case 'create':
      return svc.callTool(A, 'schedule_create', { title: 'a task', prompt: 'of A', ...call.timing });
    case 'list':
      return svc.callTool(A, 'schedule_list', {});
    case 'update':
      return svc.callTool(
        A,
        'schedule_update',
        call.change === undefined ? { id: call.id, title: 'taken' } : { id: call.id, change: call.change },
      );
    case 'delete':
      return svc.callTool(A, 'schedule_delete', { id: call.id });
    case 'pauseTool':
      return svc.callTool(A, 'schedule_update', { id: call.id, paused: call.paused });
    case 'remoteRunState':
      return svc.remote[call.method]({ sessionId: A, id: call.id });
    case 'remoteUpdate': {
      // The attacker even knows B's exact record, as a stale UI might.
      const expected: ScheduleRecord | undefined = B_RECORDS.get(call.id);
      const request = { sessionId: A, id: call.id, expected: expected ?? {}, title: 'taken' };
      return svc.remote.update(call.change === undefined ? request : { ...request, change: call.change });
    }
    case 'remoteDelete':
      return svc.remote.delete({ sessionId: A, id: call.id });
    case 'remoteHistory':
      return svc.remote.history({ sessionId: A, id: call.id, limit: 100 });
    case 'remoteList':
      return svc.remote.list({ sessionId: A });
    case 'activity':
      return svc.archive.sessionActivity(A);
    case 'stop':
      return svc.archive.sessionStop(A);
  }
}

const B_SET = new Set(IDS_OF_B);

/** Throws when an answer names a task of B or quotes one of B's prompts. */
function checkAnswer(call: Call, answer: unknown): void {
  const text = JSON.stringify(answer) ?? '';
  for (const id of IDS_OF_B) {
    if (text.includes(`Prompt of ${id}`)) throw new Error(`${JSON.stringify(call)} quoted B's prompt: ${text.slice(0, 300)}`);
  }
  const views = Array.isArray(answer) ? answer : [answer];
  for (const view of views) {
    const v = view as { id?: unknown; record?: { id?: unknown }; items?: Array<{ id: unknown }>; deleted?: unknown; code?: unknown };
    const ids = [v?.id, v?.record?.id, ...(v?.items ?? []).map((i) => i.id)];
    if (v?.deleted === true && B_SET.has(String(v.id))) throw new Error(`${JSON.stringify(call)} deleted a task of B`);
    if (typeof v?.code === 'string' || v?.deleted === false) continue;
    if (ids.some((id) => typeof id === 'string' && B_SET.has(id)))
      throw new Error(`${JSON.stringify(call)} answered with a task of B: ${text.slice(0, 300)}`);
  }
  if ('id' in call && B_SET.has(call.id)) {
    const code = (answer as { code?: unknown } | undefined)?.code;
    if (code !== 'schedule_not_found')
      throw new Error(`${JSON.stringify(call)} answered ${text.slice(0, 300)} instead of schedule_not_found`);
  }
}

const rowsOfB = (storage: MemoryStorage): string =>
  JSON.stringify((storage.document() as { tasks: Array<{ sessionId: string }> }).tasks.filter((row) => row.sessionId === 'B'));

export interface IsolationFigures {
  sequences: number;
  calls: number;
  aimedAtB: number;
}

/** Runs `runs` sequences of Session A's calls against a fresh world each. */
export async function runIsolation(options: { runs: number; seed: number; maxCalls?: number }): Promise<IsolationFigures> {
  const figures: IsolationFigures = { sequences: 0, calls: 0, aimedAtB: 0 };
  await fc.assert(
    fc.asyncProperty(fc.array(callArb, { minLength: 1, maxLength: options.maxCalls ?? 25, size: 'max' }), async (calls) => {
      figures.sequences++;
      const storage = new MemoryStorage(worldDocument());
      const svc = await createScheduleService({
        sessions: createFakeSessions(),
        storage,
        clock: createManualClock(T0),
        logger: { warn: () => undefined, error: (msg, data) => console.error(msg, data) },
      });
      try {
        const before = rowsOfB(storage);
        const listOfB = JSON.stringify(await svc.remote.list({ sessionId: 'B' }));
        for (const call of calls) {
          figures.calls++;
          if ('id' in call && B_SET.has(call.id)) figures.aimedAtB++;
          checkAnswer(call, await perform(svc, call));
        }
        if (rowsOfB(storage) !== before) throw new Error("Session B's stored rows changed");
        if (JSON.stringify(await svc.remote.list({ sessionId: 'B' })) !== listOfB) throw new Error("Session B's list changed");
      } finally {
        await svc.close();
      }
    }),
    { numRuns: options.runs, seed: options.seed },
  );
  return figures;
}

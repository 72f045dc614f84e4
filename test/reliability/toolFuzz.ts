// The tool-argument fuzzer, at two depths. `fuzzToolHandlers` calls the tool handler layer
// directly (`planToolCall`, what a mailbox slot runs) against the fixed world, so it affords a
// very large number of cases: every refusal must be a ScheduleError with a code documented for
// that tool, every accepted call's batch must be one storage accepts (a batch it refused would
// reach the caller as `persistence_uncertain`), nothing may touch Session B, and no built-in
// prototype may change. `fuzzToolService` sends the same cases through the whole service
// (mailbox, slot runner, memory storage): no call rejects, no answer is `internal_error`, and a
// refused call writes nothing and announces nothing.
import fc from 'fast-check';
import { prepareBatch } from '../../src/adapters/domainState.ts';
import { memoryStorage } from '../../src/adapters/memoryStorage.ts';
import { isScheduleError } from '../../src/domain/errors.ts';
import { instantMs } from '../../src/domain/time/instant.ts';
import type { ReadyPlan } from '../../src/planning/slotPlan.ts';
import { planToolCall } from '../../src/planning/toolPlans.ts';
import { TaskTable } from '../../src/runtime/taskTable.ts';
import { createScheduleService, type ScheduleChange } from '../../src/service.ts';
import { createFakeSessions, createManualClock } from '../../src/testing.ts';
import { type ToolCase, toolCase } from './toolArgs.ts';
import { IDS_OF_A, IDS_OF_B, PollutionGuard, T0, T0_MS, TOOL_CODES, UNKNOWN_TOOL_CODES, worldDocument, worldRows } from './world.ts';

/** What a fuzz run saw. */
export interface FuzzFigures {
  cases: number;
  accepted: number;
  /** Refusals by code. */
  codes: Record<string, number>;
}

export interface FuzzOptions {
  readonly runs: number;
  readonly seed: number;
}

const TARGET_IDS = [...IDS_OF_A, ...IDS_OF_B];
const B_IDS = new Set(IDS_OF_B);

/** The id a create's plan is executed with: the next of the table's counter, as the slot runner would reserve it. */
const NEW_ID = 'sch_15';

const allowedCodes = (name: string): readonly string[] =>
  (Object.hasOwn(TOOL_CODES, name) ? TOOL_CODES[name] : undefined) ?? UNKNOWN_TOOL_CODES;

function describeCase(c: ToolCase): string {
  let args: string;
  try {
    args = JSON.stringify(c.args) ?? String(c.args);
  } catch {
    args = Object.prototype.toString.call(c.args);
  }
  return `${c.name} ${args.length > 300 ? `${args.slice(0, 300)}…` : args}`;
}

function countCode(figures: FuzzFigures, code: string): void {
  figures.codes[code] = (figures.codes[code] ?? 0) + 1;
}

/** Longest failure message accepted: a message quotes at most an excerpt of what it received. */
export const MAX_MESSAGE_LENGTH = 1_000;

function checkMessage(c: ToolCase, message: unknown): void {
  if (typeof message !== 'string' || message.length === 0 || message.length > MAX_MESSAGE_LENGTH) {
    throw new Error(`${describeCase(c)}: failure message of ${typeof message === 'string' ? message.length : typeof message} characters`);
  }
}

/** The checks on a plan the handler layer returned for Session A. */
function checkPlan(c: ToolCase, plan: ReadyPlan): void {
  if (!plan.reply.ok) throw new Error(`${describeCase(c)}: the plan rejects instead of answering`);
  JSON.stringify(plan.reply.value);
  if (plan.kind === 'read') return;
  const batch = plan.batch;
  prepareBatch(batch); // throws when storage would refuse the rows
  for (const id of batch.deletes) if (B_IDS.has(id)) throw new Error(`${describeCase(c)}: deletes task ${id} of Session B`);
  for (const row of batch.puts) {
    if (row.sessionId !== 'A' || B_IDS.has(row.record.id)) throw new Error(`${describeCase(c)}: writes a row of another Session`);
    if (c.name === 'schedule_create' && instantMs(row.record.scheduledAt) <= T0_MS) {
      throw new Error(`${describeCase(c)}: created a task whose first target ${row.record.scheduledAt} is not in the future`);
    }
  }
}

/** Fuzzes `planToolCall` for Session A with `runs` cases. Throws (with the counterexample) on a violation. */
export function fuzzToolHandlers(options: FuzzOptions): FuzzFigures {
  const table = new TaskTable({ tasks: worldRows(), nextTaskNumber: 15 });
  const ctx = { table, now: T0_MS, isAttempting: () => false };
  const guard = new PollutionGuard();
  const figures: FuzzFigures = { cases: 0, accepted: 0, codes: {} };
  fc.assert(
    fc.property(toolCase(TARGET_IDS), (c) => {
      figures.cases++;
      let plan: ReadyPlan | undefined;
      try {
        const planned = planToolCall(ctx, 'A', c.name, c.args);
        plan = planned.kind === 'create' ? planned.withId(NEW_ID) : planned;
      } catch (error) {
        if (!isScheduleError(error)) throw new Error(`${describeCase(c)}: threw ${String(error)} (would be internal_error)`);
        if (!allowedCodes(c.name).includes(error.code)) throw new Error(`${describeCase(c)}: refused with undocumented code ${error.code}`);
        checkMessage(c, error.message);
        countCode(figures, error.code);
      }
      if (plan !== undefined) {
        checkPlan(c, plan);
        const answer = plan.reply.ok ? plan.reply.value : undefined;
        const code = typeof answer === 'object' && answer !== null && 'code' in answer ? answer.code : undefined;
        if (typeof code === 'string') countCode(figures, code);
        else figures.accepted++;
      }
      guard.check();
      if (table.size !== 14 || table.nextTaskNumber !== 15) throw new Error(`${describeCase(c)}: planning changed the table`);
    }),
    { numRuns: options.runs, seed: options.seed },
  );
  return figures;
}

const isFailure = (value: unknown): value is { code: string; message: string } =>
  typeof value === 'object' && value !== null && typeof (value as { code?: unknown }).code === 'string';

/** Session B's rows in a document, as text. */
const rowsOfB = (doc: unknown): string =>
  JSON.stringify((doc as { tasks: Array<{ sessionId: string }> }).tasks.filter((t) => t.sessionId === 'B'));

/** Cases per service instance: a fresh world keeps Session A's growing task list from slowing every later case. */
const CASES_PER_SERVICE = 10_000;

/** Fuzzes `callTool` of a whole service for Session A with `runs` cases (a fresh service every 10 000). */
export async function fuzzToolService(options: FuzzOptions): Promise<FuzzFigures> {
  const total: FuzzFigures = { cases: 0, accepted: 0, codes: {} };
  for (let done = 0, chunk = 0; done < options.runs; done += CASES_PER_SERVICE, chunk++) {
    const figures = await fuzzOneService({ runs: Math.min(CASES_PER_SERVICE, options.runs - done), seed: options.seed + chunk });
    total.cases += figures.cases;
    total.accepted += figures.accepted;
    for (const [code, n] of Object.entries(figures.codes)) total.codes[code] = (total.codes[code] ?? 0) + n;
  }
  return total;
}

async function fuzzOneService(options: FuzzOptions): Promise<FuzzFigures> {
  const storage = memoryStorage(worldDocument());
  const clock = createManualClock(T0);
  const errors: unknown[] = [];
  const svc = await createScheduleService({
    sessions: createFakeSessions(),
    storage,
    clock,
    logger: { warn: () => undefined, error: (msg, data) => errors.push({ msg, data }) },
  });
  const changes: ScheduleChange[] = [];
  svc.subscribe((change) => changes.push(change));
  const initialB = rowsOfB(storage.document());
  const guard = new PollutionGuard();
  const figures: FuzzFigures = { cases: 0, accepted: 0, codes: {} };
  try {
    await fc.assert(
      fc.asyncProperty(toolCase(TARGET_IDS), async (c) => {
        figures.cases++;
        const commits = storage.commitCount;
        const announced = changes.length;
        const logged = errors.length;
        let result: unknown;
        try {
          result = await svc.callTool('A', c.name, c.args);
        } catch (error) {
          throw new Error(`${describeCase(c)}: callTool rejected with ${String(error)}`);
        }
        JSON.stringify(result);
        const wrote = storage.commitCount - commits;
        const newChanges = changes.slice(announced);
        if (isFailure(result)) {
          countCode(figures, result.code);
          if (!allowedCodes(c.name).includes(result.code))
            throw new Error(`${describeCase(c)}: answered ${result.code}: ${result.message}`);
          if (!('deleted' in result)) checkMessage(c, result.message);
          if (wrote !== 0 || newChanges.length !== 0) throw new Error(`${describeCase(c)}: a refused call wrote or announced a change`);
        } else {
          figures.accepted++;
          if (wrote > 1 || newChanges.length !== wrote)
            throw new Error(`${describeCase(c)}: ${wrote} writes, ${newChanges.length} notifications`);
          for (const change of newChanges) {
            if (change.sessionId !== 'A' || change.ids.some((id) => B_IDS.has(id)))
              throw new Error(`${describeCase(c)}: announced a change to B`);
          }
        }
        if (errors.length > logged) throw new Error(`${describeCase(c)}: logged an error: ${String(errors[logged])}`);
        guard.check();
      }),
      { numRuns: options.runs, seed: options.seed },
    );
    if (rowsOfB(storage.document()) !== initialB) throw new Error("Session B's stored rows changed during the fuzz");
  } finally {
    await svc.close();
  }
  return figures;
}

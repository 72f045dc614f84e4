// Idempotent calls (SPEC §15): a mutating call with a `callId` is planned as usual, unless its
// Session already used that `callId` — then it answers the first answer (same operation and
// arguments) or `idempotency_conflict`, and writes nothing. A call that succeeds is remembered in
// its own batch, so the record is durable exactly when the change is; a refusal is not remembered.
// Each remembered call also forgets a few calls past their retention, so the set stays bounded
// by the calls of one retention period without a sweep of its own.
import type { ReplyValue } from '../../machines/events.ts';
import {
  type CallRef,
  canonicalArguments,
  expiredCalls,
  type IdempotentOperation,
  isRefusal,
  type RememberedCall,
  repeatedAnswer,
} from '../domain/tasks/rememberedCalls.ts';
import { formatInstant } from '../domain/time/instant.ts';
import { type SlotContext, unconfirmed } from './mutations.ts';
import { answer, type ReadyPlan, type SlotPlan, type WritePlan, write } from './slotPlan.ts';

/** The most expired calls one commit forgets. */
export const FORGET_PER_COMMIT = 16;

/** One idempotent call: its Session and `callId`, the operation and its arguments as received. */
export interface IdempotentCall extends CallRef {
  readonly operation: IdempotentOperation;
  readonly args: unknown;
}

/** A JSON copy of an answer, so neither the caller nor the remembered record can change the other. */
const copied = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

/** A call whose write came back uncertain, with the plan that sent it, its ids reserved (see src/runtime/inDoubtCalls.ts). */
export interface InDoubtCall {
  readonly plan: WritePlan;
  readonly call: RememberedCall;
}

/**
 * Plans `call` with `plan` unless its `callId` is remembered, or in doubt: then the retry sends the
 * first attempt's plan again, which writes the same rows whether or not that attempt landed.
 *
 * @throws ScheduleError `idempotency_conflict` when the `callId` was used for another call.
 */
export function planIdempotent(ctx: SlotContext, call: IdempotentCall, plan: () => SlotPlan, inDoubt?: InDoubtCall): SlotPlan {
  const args = canonicalArguments(call.args);
  const remembered = ctx.table.rememberedCall(call);
  if (remembered !== undefined) return answer(copied(repeatedAnswer(remembered, call.operation, args)) as ReplyValue);
  if (inDoubt !== undefined) {
    repeatedAnswer(inDoubt.call, call.operation, args);
    return inDoubt.plan;
  }
  const planned = plan();
  // A create is remembered with the id the slot runner gives it.
  if (planned.kind === 'create') return { kind: 'create', withId: (id) => withCall(ctx, call, args, planned.withId(id)) };
  return withCall(ctx, call, args, planned);
}

/**
 * The plan that also writes the call's record with its answer, so the record is durable exactly
 * when the change is; a refusal (or a rejection) is not remembered. A plan that wrote nothing
 * writes the record alone.
 */
function withCall(ctx: SlotContext, call: IdempotentCall, args: string, planned: WritePlan): WritePlan;
function withCall(ctx: SlotContext, call: IdempotentCall, args: string, planned: ReadyPlan): ReadyPlan;
function withCall(ctx: SlotContext, call: IdempotentCall, args: string, planned: ReadyPlan): ReadyPlan {
  const reply = planned.reply;
  if (!reply.ok || isRefusal(reply.value)) return planned;
  const record: RememberedCall = {
    sessionId: call.sessionId,
    callId: call.callId,
    operation: call.operation,
    arguments: args,
    answer: copied(reply.value),
    calledAt: formatInstant(ctx.now),
  };
  const forgetCalls = expiredCalls(ctx.table.rememberedCalls(), ctx.now, FORGET_PER_COMMIT);
  const calls = { calls: [record], ...(forgetCalls.length === 0 ? {} : { forgetCalls }) };
  if (planned.kind === 'write') return { ...planned, batch: { ...planned.batch, ...calls } };
  const { kind: _, reply: answered, effects, ...rest } = planned;
  const batch = { puts: [], deletes: [], ...calls };
  return write({ reply: answered, batch, effects, changes: [], onWriteFailure: unconfirmed }, rest);
}

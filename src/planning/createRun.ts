// A run of creates for different Sessions, each planned and given its id as it would be alone, is
// written as one batch: the rows, remembered calls and id counter of every plan together, the
// effects and changes of each in order. Each call keeps its own answer — its view, or what its
// plan answers when the write fails.
import type { ActorEffect, DomainChange, ScheduleReplyBody } from '../../machines/events.ts';
import { type CallRef, callKey, type RememberedCall } from '../domain/tasks/rememberedCalls.ts';
import type { TaskRow } from '../domain/tasks/types.ts';
import type { CommitBatch } from '../ports.ts';
import type { WritePlan } from './slotPlan.ts';

/** The plans of a run merged: one batch, and each plan's answer when that batch is written or fails. */
export interface CreateRun {
  readonly batch: CommitBatch;
  readonly effects: readonly ActorEffect[];
  readonly changes: readonly DomainChange[];
  /** Each plan's answer once the batch is written, in the plans' order. */
  readonly replies: readonly ScheduleReplyBody[];
  /** Each plan's answer (and its effects, all together) when the batch could not be written. */
  failed(error: unknown): { readonly replies: readonly ScheduleReplyBody[]; readonly effects: readonly ActorEffect[] };
}

/**
 * Merges write plans (creates of different Sessions, each with its own id: no row is named twice).
 * The counter is the highest any plan names; an expired call several plans would forget is
 * forgotten once.
 */
export function mergeCreatePlans(plans: readonly WritePlan[]): CreateRun {
  const puts: TaskRow[] = [];
  const calls: RememberedCall[] = [];
  const forget = new Map<string, CallRef>();
  const effects: ActorEffect[] = [];
  const changes: DomainChange[] = [];
  let nextTaskNumber: number | undefined;
  for (const { batch, effects: e, changes: c } of plans) {
    puts.push(...batch.puts);
    calls.push(...(batch.calls ?? []));
    for (const ref of batch.forgetCalls ?? []) forget.set(callKey(ref), ref);
    if (batch.nextTaskNumber !== undefined) nextTaskNumber = Math.max(nextTaskNumber ?? 0, batch.nextTaskNumber);
    effects.push(...e);
    changes.push(...c);
  }
  const batch: CommitBatch = {
    puts,
    deletes: [],
    ...(nextTaskNumber === undefined ? {} : { nextTaskNumber }),
    ...(calls.length === 0 ? {} : { calls }),
    ...(forget.size === 0 ? {} : { forgetCalls: [...forget.values()] }),
  };
  return {
    batch,
    effects,
    changes,
    replies: plans.map((p) => p.reply),
    failed: (error) => {
      const outcomes = plans.map((p) => p.onWriteFailure(error));
      return { replies: outcomes.map((o) => o.reply), effects: outcomes.flatMap((o) => o.effects) };
    },
  };
}

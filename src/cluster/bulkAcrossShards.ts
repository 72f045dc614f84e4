// `remote.bulk` on a cluster Host. Each shard's service holds only its shard's tasks, so a bulk call
// runs where the tasks live: a call whose filter names a Session goes whole to that Session's
// owner; any other is resolved here once, at the start — the listed tasks, or the tasks the
// filter matches in the schema's rows — and each shard's share goes to its owner as a list of
// tasks, one routed call per shard, one after another. The answers are summed; a shard whose call
// is refused (its owner unavailable, say) has its tasks skipped under the refusal's code. With a
// `callId` each shard's call carries it (remembered under the shard's first listed Session), so a
// retry that selects the same tasks answers the same.

import type { BulkRequest, RemoteCallOptions } from '../domain/args/remoteRequests.ts';
import { isScheduleError } from '../domain/errors.ts';
import type { ToolFailure } from '../domain/reads/replies.ts';
import {
  type BulkResult,
  type BulkSkip,
  type BulkTaskRef,
  type ParsedBulkRequest,
  parseBulkRequest,
  withSkipped,
} from '../domain/tasks/bulk.ts';
import { shardOf } from '../domain/tasks/sessionShard.ts';
import type { CatalogEntry } from '../domain/tasks/types.ts';
import type { RoutedCall } from './routedCall.ts';

/** What a cluster bulk call reads and where it sends each shard's share. */
export interface BulkAcrossShardsDeps {
  /** Every task as a catalog entry, read from the schema's rows. */
  entries(): Promise<CatalogEntry[]>;
  /** Runs a call at the owner of its Session's shard (here or routed); a refusal is answered. */
  dispatch(call: RoutedCall): Promise<unknown>;
  now(): number;
}

const callIdOf = (options: RemoteCallOptions | undefined): { callId?: string } =>
  options?.callId === undefined ? {} : { callId: options.callId };

/** The selected tasks by shard, in the order they were selected. */
async function selection(deps: BulkAcrossShardsDeps, parsed: ParsedBulkRequest): Promise<Map<number, BulkTaskRef[]>> {
  let refs: readonly BulkTaskRef[];
  if (parsed.tasks !== undefined) refs = parsed.tasks;
  else {
    const now = deps.now();
    const matches = parsed.matches ?? (() => true);
    refs = (await deps.entries())
      .filter((entry) => matches(entry, now))
      .map((entry) => ({ sessionId: entry.sessionId, id: entry.record.id }));
  }
  const byShard = new Map<number, BulkTaskRef[]>();
  for (const ref of refs) {
    const shard = shardOf(ref.sessionId);
    const list = byShard.get(shard);
    if (list === undefined) byShard.set(shard, [ref]);
    else list.push(ref);
  }
  return byShard;
}

/** Runs a bulk call across the shards and answers the sum of their answers. */
export async function bulkAcrossShards(
  deps: BulkAcrossShardsDeps,
  request: BulkRequest,
  options?: RemoteCallOptions,
): Promise<BulkResult | ToolFailure> {
  let parsed: ParsedBulkRequest;
  try {
    parsed = parseBulkRequest(request);
  } catch (error) {
    if (isScheduleError(error)) return error.toFailure();
    throw error;
  }
  if (parsed.sessionId !== undefined) {
    return (await deps.dispatch({ kind: 'remote.bulk', sessionId: parsed.sessionId, request, ...callIdOf(options) })) as
      | BulkResult
      | ToolFailure;
  }
  const shared = { action: parsed.action, ...(parsed.note === undefined ? {} : { note: parsed.note }) };
  let matched = 0;
  let done = 0;
  let skipped: BulkSkip[] = [];
  for (const refs of (await selection(deps, parsed)).values()) {
    const first = refs[0] as BulkTaskRef;
    const call: RoutedCall = { kind: 'remote.bulk', sessionId: first.sessionId, request: { ...shared, tasks: refs }, ...callIdOf(options) };
    const answer = (await deps.dispatch(call)) as BulkResult | ToolFailure;
    if ('code' in answer) {
      matched += refs.length;
      skipped = withSkipped(
        skipped,
        answer.code,
        refs.map((ref) => ref.id),
      );
      continue;
    }
    matched += answer.matched;
    done += answer.done;
    for (const skip of answer.skipped) skipped = mergeSkip(skipped, skip);
  }
  return { action: parsed.action, matched, done, skipped };
}

/** `skipped` with a shard's skips of one reason added (their count, and their ids while there is room). */
function mergeSkip(skipped: BulkSkip[], skip: BulkSkip): BulkSkip[] {
  const merged = withSkipped(skipped, skip.code, skip.ids);
  const extra = skip.count - skip.ids.length;
  return extra === 0 ? merged : merged.map((entry) => (entry.code === skip.code ? { ...entry, count: entry.count + extra } : entry));
}

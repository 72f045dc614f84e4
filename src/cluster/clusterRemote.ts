// The remote calls of a cluster Host that span every shard: `catalog`, `drift`, `reanchor`,
// `counts` and `bulk`.
// The catalog and the drift report are read from the shared schema's rows at the Host the call
// reached (one read, whoever holds the shards), not gathered from the owners: a routed call names
// one Session, and asking 256 shards' owners for one page would cost a round trip each. The rows
// are the committed state every owner answers from, the failure status stored with each row
// included. A failure newer than the stored one — held in memory by the service that attempted
// the delivery until its failure write lands — is taken for the shards this Host holds; an entry
// of another Host's shard carries the stored status (docs/delivery.md). A re-anchor names a
// Session (or asks for all): it runs at the owners, one routed call per Session. The counts are
// counted over the same rows in one pass (a cluster Host keeps no tally of other Hosts' shards).
// A bulk call whose filter names a Session runs at that Session's owner; any other is resolved
// here from the rows (once, at the start) and runs at each shard's owner as the list of that
// shard's tasks, one routed call per shard, the answers summed (bulkAcrossShards.ts).

import { isPlainObject } from '../domain/args/argShape.ts';
import type { BulkReanchorRequest, BulkRequest, RemoteCallOptions, TaskRef } from '../domain/args/remoteRequests.ts';
import { isScheduleError } from '../domain/errors.ts';
import type { CatalogPage, CatalogRequest } from '../domain/reads/catalogPage.ts';
import { catalogPage, filterSessionId } from '../domain/reads/catalogPage.ts';
import type { DriftPage } from '../domain/reads/driftPage.ts';
import { driftedFirst, driftLimitOf } from '../domain/reads/driftPage.ts';
import type { BulkReanchorResult, ToolFailure } from '../domain/reads/replies.ts';
import type { CountsRequest, ScheduleCounts } from '../domain/reads/stateCounts.ts';
import { countRows, countsSessionId } from '../domain/reads/stateCounts.ts';
import type { BulkResult } from '../domain/tasks/bulk.ts';
import { shardOf } from '../domain/tasks/sessionShard.ts';
import type { CatalogEntry, DeliveryFailure, ScheduleView } from '../domain/tasks/types.ts';
import type { DriftReport } from '../domain/time/drift.ts';
import { driftReport } from '../domain/time/drift.ts';
import { compareTaskIds } from '../planning/mutations.ts';
import { catalogEntry } from '../planning/remotePlans.ts';
import { currentTzdata } from '../runtime/tzdataVersion.ts';
import type { ScheduleService } from '../service.ts';
import { bulkAcrossShards } from './bulkAcrossShards.ts';
import type { ClusterReader } from './clusterRows.ts';
import type { RoutedCall } from './routedCall.ts';

/** What the cross-shard calls read and where they send the calls that name a Session. */
export interface ClusterRemoteDeps {
  readonly reader: ClusterReader;
  /** The delivery failures the services of this Host's shards among `shards` know, by task id. */
  localFailures(shards: ReadonlySet<number>): Promise<ReadonlyMap<string, DeliveryFailure>>;
  /** Runs a call at the owner of its Session's shard (here or routed). */
  dispatch(call: RoutedCall): Promise<unknown>;
  /** The Host's clock (what `overdue` and `scheduled` compare with). */
  now(): number;
}

/** The cross-shard remote methods, typed as `ScheduleService` has them. */
export type ClusterWideRemote = Pick<ScheduleService['remote'], 'catalog' | 'drift' | 'reanchor' | 'counts' | 'bulk'>;

/** The failing entries of the services given, by task id (each service answers only its own shard's). */
export async function failuresOf(services: readonly ScheduleService[]): Promise<Map<string, DeliveryFailure>> {
  const failures = new Map<string, DeliveryFailure>();
  for (const service of services) {
    for (let cursor: string | undefined; ; ) {
      const page = await service.remote.catalog({ filter: { status: 'failing' }, limit: 500, ...(cursor === undefined ? {} : { cursor }) });
      if ('code' in page) break;
      for (const entry of page.entries) if (entry.failure !== undefined) failures.set(entry.record.id, entry.failure);
      if (page.nextCursor === undefined) break;
      cursor = page.nextCursor;
    }
  }
  return failures;
}

/** Builds `catalog`, `drift` and `reanchor` over the schema's rows and the owners. */
export function clusterRemote(deps: ClusterRemoteDeps): ClusterWideRemote {
  const entries = async (): Promise<CatalogEntry[]> => {
    const { rows } = await deps.reader.rows();
    // Only the services of shards that have tasks are asked (a shard without any has no failure).
    const failures = await deps.localFailures(new Set(rows.map((row) => shardOf(row.sessionId))));
    return rows.map((row) => catalogEntry(row, failures.get(row.record.id)));
  };

  function catalog(): Promise<CatalogEntry[]>;
  function catalog(request: CatalogRequest): Promise<CatalogPage | ToolFailure>;
  async function catalog(request?: CatalogRequest): Promise<CatalogEntry[] | CatalogPage | ToolFailure> {
    const all = await entries();
    if (request === undefined) return all.sort((a, b) => compareTaskIds(a.record.id, b.record.id));
    try {
      const now = deps.now();
      return { ...catalogPage(all, request, now), counts: countsOf(all, now, filterSessionId(request)) };
    } catch (error) {
      if (isScheduleError(error)) return error.toFailure();
      throw error;
    }
  }

  const drift = async (request?: unknown): Promise<DriftReport | DriftPage | ToolFailure> => {
    let limit: number | undefined;
    try {
      limit = request === undefined ? undefined : driftLimitOf(request);
    } catch (error) {
      if (isScheduleError(error)) return error.toFailure();
      throw error;
    }
    const { rows, writtenWith } = await deps.reader.rows();
    const active = rows.filter((row) => row.status === 'active');
    const tzdata = currentTzdata();
    const versions = writtenWith === undefined ? { tzdata } : { tzdata, writtenWith };
    return limit === undefined ? { ...versions, tasks: driftReport(active) } : { ...versions, ...driftedFirst(active, limit) };
  };

  const atOwner = (sessionId: string, request: unknown): Promise<unknown> => deps.dispatch({ kind: 'remote.reanchor', sessionId, request });

  /** `{all: true}` without a Session: every Session with a drifted task, one routed call each. */
  const reanchorAll = async (): Promise<BulkReanchorResult | ToolFailure> => {
    const { rows } = await deps.reader.rows();
    const sessions = [...new Set(driftReport(rows.filter((row) => row.status === 'active')).map((entry) => entry.sessionId))];
    const reanchored: ScheduleView[] = [];
    let refused: ToolFailure | undefined;
    for (const sessionId of sessions) {
      const answer = (await atOwner(sessionId, { all: true, sessionId })) as BulkReanchorResult | ToolFailure;
      if ('code' in answer) refused ??= answer;
      else reanchored.push(...answer.reanchored);
    }
    return refused ?? { reanchored };
  };

  function reanchor(request: TaskRef): Promise<ScheduleView | ToolFailure>;
  function reanchor(request: BulkReanchorRequest): Promise<BulkReanchorResult | ToolFailure>;
  async function reanchor(request: TaskRef | BulkReanchorRequest): Promise<ScheduleView | BulkReanchorResult | ToolFailure> {
    const value: unknown = request;
    if (isPlainObject(value) && value.all === true && value.sessionId === undefined && Object.keys(value).length === 1) {
      return reanchorAll();
    }
    // Any other form names a Session; its owner checks the request and answers or refuses it.
    const sessionId = isPlainObject(value) && typeof value.sessionId === 'string' ? value.sessionId : '';
    return (await atOwner(sessionId, request)) as ScheduleView | BulkReanchorResult | ToolFailure;
  }

  const counts = async (request?: CountsRequest): Promise<ScheduleCounts | ToolFailure> => {
    try {
      const sessionId = countsSessionId(request);
      return countsOf(await entries(), deps.now(), sessionId);
    } catch (error) {
      if (isScheduleError(error)) return error.toFailure();
      throw error;
    }
  };

  const bulk = (request: BulkRequest, options?: RemoteCallOptions): Promise<BulkResult | ToolFailure> =>
    bulkAcrossShards({ entries, dispatch: deps.dispatch, now: deps.now }, request, options);

  return { catalog, drift: drift as ClusterWideRemote['drift'], reanchor, counts, bulk };
}

/** The counts of catalog entries at `now`: all of them, and the Session's when one is named. */
function countsOf(entries: readonly CatalogEntry[], now: number, sessionId: string | undefined): ScheduleCounts {
  const failureOf = (entry: CatalogEntry) => entry.failure;
  const all = countRows(entries, now, failureOf);
  if (sessionId === undefined) return { all };
  return {
    all,
    session: countRows(
      entries.filter((entry) => entry.sessionId === sessionId),
      now,
      failureOf,
    ),
  };
}

// `postgresStorage` as the `agent-schedule/postgres` entry exports it: without `cluster`, the
// storage of one Host (its only writer); with `cluster: { hostId, … }`, a storage many Hosts share,
// which `createScheduleService` and `scheduleSupervisor` join as one member of the cluster rather
// than open — the same service, calls and options on one Host or many. Joining runs
// `createClusterService` on the storage's pool (its own for a connection string, sized for the
// shard opens and routed calls a member runs at once, ended when the member leaves).

import type { SqlPool } from '../adapters/postgres/driver.ts';
import { createPgPool } from '../adapters/postgres/pgPool.ts';
import {
  DEFAULT_APPLICATION_NAME,
  type PostgresStorage,
  type PostgresStorageOptions,
  postgresStorage as singleHostStorage,
} from '../adapters/postgres/postgresStorage.ts';
import { ScheduleError } from '../domain/errors.ts';
import type { JoinedCluster, MemberPorts, ScheduleStorage } from '../ports.ts';
import { CallOrder } from './callOrder.ts';
import { type ClusterService, type ClusterServiceOptions, createClusterService } from './clusterService.ts';
import { runServiceCall } from './serviceCall.ts';
import { shardInspectionEvent } from './shardInspection.ts';

/** How this Host takes part in the cluster (the members of `ClusterServiceOptions` that are not the Host's ports). */
export type ClusterOptions = Pick<ClusterServiceOptions, 'hostId' | 'leaseMs' | 'keeperPool' | 'routing' | 'timers' | 'autoStart'>;

/** Options of a shared storage: where the schema is, and `cluster`. */
export interface ClusterStorageOptions
  extends Pick<PostgresStorageOptions, 'connectionString' | 'pool' | 'schema' | 'applicationName' | 'queryTimeoutMs'> {
  readonly cluster: ClusterOptions;
}

/**
 * Connections of a member's own pool: the keeper's reserved one, the change feed's and the call
 * router's listeners, the 16 shard opens that run at once, and room for commits and routed calls
 * meanwhile (docs/storage.md, "Pool size").
 */
export const MEMBER_POOL_SIZE = 24;

/** A running member as the supervisor and the service run calls on it. */
export function joinedCluster(service: ClusterService, leave: () => Promise<void>): JoinedCluster {
  const order = new CallOrder();
  return {
    hostId: service.hostId,
    run: (call) => order.run(call, () => runServiceCall(service, call)),
    subscribe: (listener) => service.subscribe(listener),
    held: () => service.held(),
    topology: () => service.topology(),
    ownerOf: (sessionId) => service.ownerOf(sessionId),
    step: () => service.step(),
    health: () => service.health(),
    whenIdle: () => service.whenIdle(),
    close: leave,
  };
}

/** A storage many Hosts share: joined through `cluster`, never opened as one Host's storage. */
function clusterStorage(options: ClusterStorageOptions): ScheduleStorage {
  const { cluster } = options;
  if (options.pool === undefined && options.connectionString === undefined) {
    throw new ScheduleError('internal_error', 'postgresStorage needs a connectionString or a pool.');
  }
  for (const member of ['fence', 'shards', 'ownerLeaseMs'] as const) {
    if (member in options) {
      throw new ScheduleError(
        'internal_error',
        `postgresStorage takes either cluster or ${member}: a cluster member leases and fences its shards itself.`,
      );
    }
  }
  const notOpened = (): Promise<never> =>
    Promise.reject(
      new ScheduleError(
        'internal_error',
        'A cluster storage is joined, not opened: pass it to createScheduleService or scheduleSupervisor as their storage.',
      ),
    );
  return {
    open: notOpened,
    commit: notOpened,
    close: async () => undefined,
    cluster: {
      hostId: cluster.hostId,
      join: async (ports: MemberPorts): Promise<JoinedCluster> => {
        const own = options.pool === undefined;
        const pool: SqlPool =
          options.pool ??
          (await createPgPool({
            connectionString: options.connectionString ?? '',
            applicationName: options.applicationName ?? DEFAULT_APPLICATION_NAME,
            queryTimeoutMs: options.queryTimeoutMs ?? 30_000,
            max: MEMBER_POOL_SIZE,
          }));
        try {
          const service = await createClusterService({
            ...cluster,
            ...ports,
            pool,
            ...(options.schema === undefined ? {} : { schema: options.schema }),
            ...(ports.inspect === undefined ? {} : { inspect: (event, shard) => ports.inspect?.(shardInspectionEvent(event, shard)) }),
          });
          return joinedCluster(service, async () => {
            await service.close();
            if (own) await pool.end();
          });
        } catch (error) {
          if (own) await pool.end();
          throw error;
        }
      },
    },
  };
}

/**
 * The storage on PostgreSQL. `postgresStorage({ connectionString })` (or `{ pool }`) is one Host's,
 * the schema's only writer; `postgresStorage({ connectionString, cluster: { hostId, leaseMs } })` is
 * shared by every Host that joins with its own `hostId`: each holds its share of the 256 shards,
 * fences its commits with their leases and routes each call to the Host whose shard holds the
 * Session (docs/cluster.md).
 */
export function postgresStorage(options: ClusterStorageOptions): ScheduleStorage;
export function postgresStorage(options: PostgresStorageOptions): PostgresStorage;
export function postgresStorage(options: PostgresStorageOptions | ClusterStorageOptions): ScheduleStorage {
  return 'cluster' in options && options.cluster !== undefined ? clusterStorage(options) : singleHostStorage(options);
}

// The operations routes (docs/operations.md). `GET /healthz`: the process answers. `GET /readyz`:
// the schedule can take work — its storage is open and, on a cluster, this replica holds shards
// whose leases are live by its own clock; otherwise 503 with the reason. `GET /metrics`: the
// Prometheus text exposition the Host gives (metrics.ts makes one; without it 404). The two probes carry no data, so they are
// registered ahead of the `Host`-header guard: an orchestrator probes the address it dialled
// (a pod's IP), which no allow-list names. `/metrics` shows task counts and stays behind it.
import type { Hono } from 'hono';
import type { ScheduleHealth } from '../index.ts';
import { sendFailure } from './failures.ts';
import type { ConsoleMetricsSource, ConsoleService } from './options.ts';

/** Why a replica is not ready, as `GET /readyz` answers with 503. */
export type NotReadyReason = 'storage_closed' | 'no_shards' | 'lease_expired';

/** What `GET /readyz` answers. */
export type Readiness =
  | { readonly status: 'ready'; readonly shards?: { readonly held: number; readonly live: number } }
  | { readonly status: 'not_ready'; readonly reason: NotReadyReason; readonly message: string };

/** Whether a service with this health can take work. */
export function readiness(health: ScheduleHealth): Readiness {
  if (!health.open) return { status: 'not_ready', reason: 'storage_closed', message: 'The schedule storage is not open.' };
  const { shards } = health;
  if (shards === undefined) return { status: 'ready' };
  if (shards.held === 0) return { status: 'not_ready', reason: 'no_shards', message: 'This replica holds no shard of the cluster yet.' };
  if (shards.live < shards.held)
    return {
      status: 'not_ready',
      reason: 'lease_expired',
      message: `${shards.held - shards.live} of the ${shards.held} shard leases this replica holds may have run out; it is renewing them.`,
    };
  return { status: 'ready', shards };
}

/** Registers `/healthz` and `/readyz`: before the identity guard (see the file comment). */
export function probeRoutes(app: Hono, service: ConsoleService): void {
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', (c) => {
    const answer = readiness(service.health());
    return c.json(answer, answer.status === 'ready' ? 200 : 503);
  });
}

/** Registers `GET /metrics`. */
export function metricsRoute(app: Hono, metrics: ConsoleMetricsSource | undefined): void {
  app.get('/metrics', async (c) => {
    if (metrics === undefined) return sendFailure(c, 'route_not_found', 'This Host serves no metrics.');
    const text = await metrics.exposition();
    return c.body(text, 200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' });
  });
}

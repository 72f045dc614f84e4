// One supervisor call (`ScheduleCall`) run as the cluster service's method of the same name: what
// a cluster member does with each call a Host's supervisor or service hands it.
import type { ReplyValue, ScheduleCall } from '../../machines/replies.ts';
import type { RemoteCallOptions } from '../domain/args/remoteRequests.ts';
import { ScheduleError } from '../domain/errors.ts';
import type { ClusterService } from './clusterService.ts';

/** The `callId` of a call, as the service's options take it. */
const keyed = (call: { readonly callId?: string }): RemoteCallOptions => (call.callId === undefined ? {} : { callId: call.callId });

/** Runs one call against the cluster service. */
export function runServiceCall(service: ClusterService, call: ScheduleCall): Promise<ReplyValue> {
  switch (call.kind) {
    case 'tool':
      return service.callTool(call.sessionId, call.name, call.args, {
        ...keyed(call),
        ...(call.signal === undefined ? {} : { signal: call.signal }),
      });
    case 'remote': {
      // Every remote method takes the request (absent for a whole catalog or drift report) and its options.
      const remote = service.remote as unknown as Record<string, (request: unknown, options: RemoteCallOptions) => Promise<ReplyValue>>;
      const method = remote[call.method];
      if (method === undefined) return Promise.reject(new ScheduleError('invalid_selector', `No remote method ${call.method}.`));
      return method(call.request, keyed(call));
    }
    case 'archive':
      return call.method === 'sessionActivity'
        ? service.archive.sessionActivity(call.sessionId)
        : service.archive.sessionStop(call.sessionId).then(() => null);
  }
}

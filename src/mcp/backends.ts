// Where the MCP server runs its tool calls. The Host's own service: each call is its `callTool`
// as the bound Session. A running Host: each call is
// `POST /api/sessions/:id/tools/:name` (a call's `callId` as its `Idempotency-Key` header), and the
// Host's answer — a value or `{code, message}`, with whatever status — is the tool's value; the
// Host delivers the reminders. An embedded service on a
// data folder (`<dir>/schedule.json`, the file the Host keeps): calls run in this process, but it
// has no Session controller, so nothing is delivered here — due reminders stay due (recorded as
// not delivered) until a Host opens that folder. The folder's lock refuses a second owner, so a
// Host and an embedded server cannot share one folder at the same time.
import { join } from 'node:path';
import { jsonFileStorage } from '../adapters/jsonFileStorage.ts';
import type { Logger } from '../ports.ts';
import { createScheduleService } from '../service.ts';
import type { ToolBackend, ToolBackendOptions } from './server.ts';

/** A backend and how to let it go. */
export interface McpBackend {
  readonly call: ToolBackend;
  close(): Promise<void>;
}

/** `encodeURIComponent` for each path segment. */
const pathOf = (...segments: string[]): string => `/${segments.map(encodeURIComponent).join('/')}`;

/** What runs a tool call: a `ScheduleService` or a cluster service. */
export interface ToolCaller {
  callTool(sessionId: string, name: string, args: unknown, options?: ToolBackendOptions): Promise<unknown>;
}

/** Calls the tools of `service` as `sessionId`: how a Host serves MCP from its own process. Closing it leaves the service open. */
export function serviceBackend(service: ToolCaller, sessionId: string): McpBackend {
  return {
    call: (name, args, options) => service.callTool(sessionId, name, args, options),
    close: async () => {},
  };
}

/** Calls the tools of the Host at `baseUrl` as `sessionId`. Never throws: a Host that does not answer is `host_unreachable`. */
export function hostBackend(baseUrl: string, sessionId: string): McpBackend {
  const base = baseUrl.replace(/\/+$/, '');
  return {
    async call(name, args, options) {
      const headers: Record<string, string> = { accept: 'application/json', 'content-type': 'application/json' };
      if (options.callId !== undefined) headers['idempotency-key'] = options.callId;
      let response: Response;
      try {
        response = await fetch(`${base}${pathOf('api', 'sessions', sessionId, 'tools', name)}`, {
          method: 'POST',
          headers,
          body: JSON.stringify(args),
        });
      } catch (error) {
        const why = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
        return { code: 'host_unreachable', message: `No Host answers at ${base} (${why}). Start one with \`npm start\`, or pass --url.` };
      }
      const text = await response.text();
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return { code: 'internal_error', message: `The Host at ${base} answered ${response.status} without JSON.` };
      }
    },
    close: async () => {},
  };
}

/** Why an embedded server cannot deliver: told to the service's delivery attempts, which then record nothing. */
export const NO_DELIVERY_HERE =
  'agent-schedule mcp --data has no Session controller, so it cannot deliver reminders; a Host that opens this data folder delivers them.';

/** Opens the schedule in `dataDir` and calls its tools as `sessionId`. Rejects like `createScheduleService` (e.g. a locked or damaged domain). */
export async function embeddedBackend(dataDir: string, sessionId: string, logger: Logger): Promise<McpBackend> {
  const service = await createScheduleService({
    storage: jsonFileStorage({ path: join(dataDir, 'schedule.json') }),
    sessions: {
      resolveAgent: () => Promise.reject(new Error(NO_DELIVERY_HERE)),
    },
    // A due task is tried once and parked, not retried on a timer: it can never succeed here.
    config: { retry: false },
    logger,
  });
  return { call: serviceBackend(service, sessionId).call, close: () => service.close() };
}

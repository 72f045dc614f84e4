// How the Host commands talk to a running Host: JSON over HTTP at `--url` (default
// http://127.0.0.1:4319). A failure answer becomes a CliFailure carrying the Host's code and
// message (exit 1); a Host that does not answer is `host_unreachable`.
import { CliFailure } from './command.ts';

/** Where `npm start` listens. */
export const DEFAULT_HOST_URL = 'http://127.0.0.1:4319';

/** A Host at a base URL. */
export interface HostClient {
  get(path: string): Promise<unknown>;
  send(method: 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<unknown>;
}

/** `encodeURIComponent` for each path segment. */
export const pathOf = (...segments: string[]): string => `/${segments.map(encodeURIComponent).join('/')}`;

/** A client of the Host at `baseUrl`. */
export function hostClient(baseUrl: string): HostClient {
  const base = baseUrl.replace(/\/+$/, '');
  async function request(method: string, path: string, body?: unknown): Promise<unknown> {
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, {
        method,
        headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      const why = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
      throw new CliFailure('host_unreachable', `No Host answers at ${base} (${why}). Start one with \`npm start\`, or pass --url.`);
    }
    const text = await response.text();
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new CliFailure('internal_error', `The Host at ${base} answered ${response.status} without JSON.`);
    }
    if (!response.ok) {
      const failure = value as { code?: unknown; message?: unknown };
      const code = typeof failure.code === 'string' ? failure.code : 'internal_error';
      const message = typeof failure.message === 'string' ? failure.message : `HTTP ${response.status} from ${path}.`;
      throw new CliFailure(code, message);
    }
    return value;
  }
  return { get: (path) => request('GET', path), send: (method, path, body) => request(method, path, body) };
}

// How the Host commands talk to a running Host: JSON over HTTP at `--url` (default
// http://127.0.0.1:4319). A failure answer becomes a CliFailure carrying the Host's code and
// message (exit 1); a Host that does not answer is `host_unreachable`. Requests go through
// node:http (node:https for an https URL, loaded only then) rather than the global `fetch`, whose
// first use loads undici: more start-up than a command's whole exchange with a local Host.
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
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

/** One HTTP exchange: the answer's status and body text. Rejects when no answer comes. */
async function exchange(url: string, method: string, body: string | undefined): Promise<{ status: number; text: string }> {
  const target = new URL(url);
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new Error(`${target.protocol} is not http: or https:`);
  const request = target.protocol === 'https:' ? (await import('node:https')).request : httpRequest;
  const options: RequestOptions = {
    method,
    // No keep-alive pool: a command makes one or two requests, then exits.
    agent: false,
    headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
  };
  return new Promise((resolve, reject) => {
    const sent = request(target, options, (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

/** A client of the Host at `baseUrl`. */
export function hostClient(baseUrl: string): HostClient {
  const base = baseUrl.replace(/\/+$/, '');
  async function request(method: string, path: string, body?: unknown): Promise<unknown> {
    let response: { status: number; text: string };
    try {
      response = await exchange(`${base}${path}`, method, body === undefined ? undefined : JSON.stringify(body));
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new CliFailure('host_unreachable', `No Host answers at ${base} (${why}). Start one with \`npm start\`, or pass --url.`);
    }
    let value: unknown;
    try {
      value = JSON.parse(response.text);
    } catch {
      throw new CliFailure('internal_error', `The Host at ${base} answered ${response.status} without JSON.`);
    }
    if (response.status < 200 || response.status > 299) {
      const failure = value as { code?: unknown; message?: unknown };
      const code = typeof failure.code === 'string' ? failure.code : 'internal_error';
      const message = typeof failure.message === 'string' ? failure.message : `HTTP ${response.status} from ${path}.`;
      throw new CliFailure(code, message);
    }
    return value;
  }
  return { get: (path) => request('GET', path), send: (method, path, body) => request(method, path, body) };
}

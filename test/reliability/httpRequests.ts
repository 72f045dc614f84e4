// Raw HTTP requests for the HTTP isolation checks: sent exactly as written (no URL
// normalisation, any `Host` and `Origin` header, a body with a Content-Length or chunked), each
// on its own connection; and a byte-for-byte snapshot of the files a Host keeps in its data
// folder, to show that a refused request stored nothing.
import { readdir, readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';

/** A request as the checks build it. */
export interface RawRequest {
  readonly method: string;
  /** Path and query, sent as they are. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /** Send the body in chunks, without a Content-Length. */
  readonly chunked?: boolean;
}

/** The answer: status, headers and body text; status 0 when the connection failed before one. */
export interface RawResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly text: string;
}

/** Sends one request to the Host at `url`. */
export function sendRaw(url: string, req: RawRequest): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  const headers: Record<string, string> = { ...req.headers };
  if (req.body !== undefined && req.chunked === true) headers['transfer-encoding'] = 'chunked';
  if (req.body !== undefined && req.chunked !== true) headers['content-length'] = String(Buffer.byteLength(req.body));
  return new Promise((resolve, reject) => {
    let answered = false;
    const r = request({ hostname, port, path: req.path, method: req.method, headers, agent: false }, (res) => {
      answered = true;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      res.on('error', reject);
    });
    // A server may answer (413) and close before reading the whole body; the answer is what counts.
    r.on('error', (error) => {
      if (!answered) resolve({ status: 0, headers: {}, text: String(error) });
    });
    if (req.body === undefined) r.end();
    else if (req.chunked === true) {
      for (let i = 0; i < req.body.length; i += 16_384) r.write(req.body.slice(i, i + 16_384));
      r.end();
    } else r.end(req.body);
  });
}

/** Every file of a data folder (storage and transcripts, not the lock), path → content. */
export async function dataFiles(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || entry.name.endsWith('.lock')) continue;
    const path = join(entry.parentPath, entry.name);
    out.set(path, await readFile(path, 'utf8'));
  }
  return out;
}

/** Whether two snapshots of a data folder are the same. */
export function sameFiles(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  return a.size === b.size && [...a].every(([path, text]) => b.get(path) === text);
}

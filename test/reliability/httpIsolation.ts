// Isolation over HTTP as a property, against an in-process Host on a test clock whose data folder
// holds the world of world.ts (Sessions A and B, tasks of every kind with history) and a
// transcript for each Session. fast-check generates sequences of requests aimed at Session A's
// routes — tool calls and the task routes, with B's task ids, encoded and near-miss forms of
// them, B's exact record as `expected`, and `sessionId: "B"` slipped into bodies, queries and
// headers. Mixed in are requests the Host must refuse before anything runs: a foreign `Origin`
// or `Sec-Fetch-Site: cross-site` on a write, a body over 64 KiB, a foreign `Host` header —
// these aimed at any write route, B's routes and the test clock included. Checks: no answer
// shows a task of B or its prompt, title or transcript; a call on one of B's ids is refused; no
// answer allows cross-origin reads (CORS); each refused request gets its status and code and
// leaves every file of the data folder byte-for-byte as it was; at the end B's stored rows and
// B's transcript are unchanged.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { loadDomainFiles } from '../../src/adapters/loadDomain.ts';
import { startTestHost } from '../host/support.ts';
import { type Aimed, aimedRequest, type Guard, guardedRequest, withPort } from './httpRequestArbs.ts';
import { dataFiles, type RawRequest, type RawResponse, sameFiles, sendRaw } from './httpRequests.ts';
import { IDS_OF_B, T0, worldDocument } from './world.ts';

const B_IDS = new Set(IDS_OF_B);
/** Text of B's that no answer to A may contain: titles and prompts of B's tasks, B's transcript. */
const B_TEXT = /(?:Task|Prompt of) sch_(?:8|9|1[0-4])(?!\d)|private note of B/;

const transcript = (sessionId: string): string =>
  `${JSON.stringify({ messageId: 'msg-1', role: 'user', producer: 'schedule', text: `private note of ${sessionId}`, at: T0 })}\n`;

/** A data folder holding the world and one transcript line per Session. */
export function seedDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-schedule-http-isolation-'));
  writeFileSync(join(dir, 'schedule.json'), worldDocument());
  mkdirSync(join(dir, 'sessions'));
  for (const id of ['A', 'B']) writeFileSync(join(dir, 'sessions', `${id}.jsonl`), transcript(id));
  return dir;
}

const rowsOfB = async (dir: string): Promise<string> =>
  JSON.stringify((await loadDomainFiles(join(dir, 'schedule.json'))).state.snapshot().tasks.filter((row) => row.sessionId === 'B'));

/** Every object in a JSON value. */
function* objects(value: unknown): Generator<Record<string, unknown>> {
  if (typeof value !== 'object' || value === null) return;
  if (!Array.isArray(value)) yield value as Record<string, unknown>;
  for (const member of Object.values(value)) yield* objects(member);
}

function checkAimed(step: Aimed, res: RawResponse): void {
  const what = `${step.request.method} ${step.request.path}`;
  if (B_TEXT.test(res.text)) throw new Error(`${what} answered with B's text: ${res.text.slice(0, 300)}`);
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    throw new Error(`${what} answered ${res.status} without JSON: ${res.text.slice(0, 200)}`);
  }
  for (const o of objects(body)) {
    const ids = [o.id, (o.record as { id?: unknown } | undefined)?.id];
    if (ids.some((id) => typeof id === 'string' && B_IDS.has(id)) && typeof o.code !== 'string')
      throw new Error(`${what} answered with a task of B: ${res.text.slice(0, 300)}`);
  }
  if (step.targetsB && res.status < 400) throw new Error(`${what} on B's task answered ${res.status}: ${res.text.slice(0, 300)}`);
}

const REFUSAL: Readonly<Record<Guard, readonly [number, string]>> = {
  origin: [403, 'origin_not_allowed'],
  crossSite: [403, 'origin_not_allowed'],
  host: [403, 'host_not_allowed'],
  oversized: [413, 'body_too_large'],
};

/** What a run of sequences saw. */
export interface HttpIsolationFigures {
  sequences: number;
  requests: number;
  aimedAtB: number;
  refused: Record<Guard, number>;
}

/** Runs `runs` sequences, each against a fresh Host on a fresh copy of the world. */
export async function runHttpIsolation(options: { runs: number; seed: number; maxRequests?: number }): Promise<HttpIsolationFigures> {
  const figures: HttpIsolationFigures = {
    sequences: 0,
    requests: 0,
    aimedAtB: 0,
    refused: { origin: 0, crossSite: 0, host: 0, oversized: 0 },
  };
  const steps = fc.array(fc.oneof({ weight: 3, arbitrary: aimedRequest }, { weight: 1, arbitrary: guardedRequest }), {
    minLength: 1,
    maxLength: options.maxRequests ?? 12,
  });
  await fc.assert(
    fc.asyncProperty(steps, async (sequence) => {
      figures.sequences++;
      const dir = seedDataDir();
      const t = await startTestHost({ keepDataDir: dir, testClock: T0 });
      try {
        const port = Number(new URL(t.url).port);
        const own = { host: `127.0.0.1:${port}` };
        const before = await rowsOfB(dir);
        const transcriptOfB = transcript('B');
        for (const step of sequence) {
          figures.requests++;
          const request: RawRequest = withPort({ ...step.request, headers: { ...own, ...step.request.headers } }, port);
          if (step.kind === 'guarded') {
            const files = await dataFiles(dir);
            const res = await sendRaw(t.url, request);
            await t.host.service.whenIdle();
            const [status, code] = REFUSAL[step.guard];
            if (res.status !== status || !res.text.includes(`"code":"${code}"`))
              throw new Error(`${step.guard}: ${request.method} ${request.path} answered ${res.status} ${res.text.slice(0, 200)}`);
            if (!sameFiles(files, await dataFiles(dir)))
              throw new Error(`${step.guard}: ${request.method} ${request.path} changed stored files`);
            figures.refused[step.guard]++;
            continue;
          }
          if (step.targetsB) figures.aimedAtB++;
          const res = await sendRaw(t.url, request);
          if (res.headers['access-control-allow-origin'] !== undefined) throw new Error(`${request.path} allows cross-origin reads`);
          checkAimed(step, res);
        }
        await t.host.service.whenIdle();
        if ((await rowsOfB(dir)) !== before) throw new Error("Session B's stored rows changed");
        const files = await dataFiles(dir);
        if (files.get(join(dir, 'sessions', 'B.jsonl')) !== transcriptOfB) throw new Error("Session B's transcript changed");
        const others = [...files.keys()].filter((path) => path.startsWith(join(dir, 'sessions')) && !/[AB]\.jsonl$/.test(path));
        if (others.length > 0) throw new Error(`unexpected transcripts: ${others.join(', ')}`);
      } finally {
        await t.close();
        rmSync(dir, { recursive: true, force: true });
      }
    }),
    { numRuns: options.runs, seed: options.seed },
  );
  return figures;
}

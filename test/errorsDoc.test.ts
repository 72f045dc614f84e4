// docs/errors.md is generated from the error catalog in src/domain/errors.ts: the committed page
// must be exactly what `npm run docs` writes now, every code must be described, every call the
// catalog names must exist, and each code must really be answered by a call the catalog names.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildErrorsDoc, ERRORS_DOC_PATH } from '../scripts/errorsDoc.ts';
import { memoryStorage } from '../src/adapters/memoryStorage.ts';
import { ERROR_CATALOG, ERROR_CODES, type ErrorCode, ScheduleError } from '../src/domain/errors.ts';
import * as postgresApi from '../src/entries/postgres.ts';
import * as api from '../src/index.ts';
import { createScheduleService } from '../src/service.ts';
import { createFakeSessions, createManualClock } from '../src/testing.ts';
import { TOOL_NAMES } from '../src/tools/definitions.ts';
import { pgliteListener, randomSchema, usePglite } from './storage/postgresHarness.ts';
import { closeAll, create, harness, MINUTE, tick } from './support/harness.ts';

afterEach(closeAll);

const pglite = usePglite();

const page = fileURLToPath(new URL(`../${ERRORS_DOC_PATH}`, import.meta.url));

describe('the committed error catalog page', () => {
  it(`${ERRORS_DOC_PATH} is up to date (run \`npm run docs\` after changing ERROR_CATALOG)`, () => {
    expect(existsSync(page), `${ERRORS_DOC_PATH} is missing`).toBe(true);
    expect(readFileSync(page, 'utf8') === buildErrorsDoc(), `${ERRORS_DOC_PATH} is stale`).toBe(true);
  });

  it('describes every code: what it means, which calls answer it, what to do next', () => {
    const text = buildErrorsDoc();
    for (const code of ERROR_CODES) {
      const info = ERROR_CATALOG[code];
      expect(info.meaning.length, code).toBeGreaterThan(20);
      expect(info.nextStep.length, code).toBeGreaterThan(20);
      expect(info.answeredBy.length, code).toBeGreaterThan(0);
      expect(text).toContain(`## ${code}\n\n${info.meaning}\n`);
    }
  });

  it('generation is deterministic', () => {
    expect(buildErrorsDoc()).toBe(buildErrorsDoc());
  });
});

describe('the calls the catalog names', () => {
  it('each is a model tool, a method of the service, or an export of the package', async () => {
    const h = await harness();
    const service = h.svc as unknown as Record<string, unknown>;
    const known = (call: string): boolean => {
      const [namespace, method] = call.split('.');
      if (method !== undefined) return typeof (service[namespace ?? ''] as Record<string, unknown> | undefined)?.[method] === 'function';
      return (TOOL_NAMES as readonly string[]).includes(call) || typeof service[call] === 'function' || call in api || call in postgresApi;
    };
    const unknownCalls = ERROR_CODES.flatMap((code) =>
      ERROR_CATALOG[code].answeredBy.filter((call) => !known(call)).map((c) => `${code}: ${c}`),
    );
    expect(unknownCalls).toEqual([]);
  });

  /** The code a call answered with: a resolved failure's `code`, or a rejected or thrown ScheduleError's. */
  async function codeOf(run: () => unknown): Promise<unknown> {
    try {
      const value = await run();
      return (value as { code?: unknown } | null)?.code;
    } catch (error) {
      return error instanceof ScheduleError ? error.code : error;
    }
  }

  const base = { title: 't', prompt: 'p' };

  it('each code is answered by a call the catalog names for it', async () => {
    const storage = memoryStorage();
    const h = await harness({ storage });
    const oneShot = await create(h, 's1', { after_seconds: 60 });
    const daily = await create(h, 's1', { daily: { time: '09:00:00', time_zone: 'UTC' } });
    await tick(h, MINUTE);
    const entry = await h.svc.remote.get({ sessionId: 's1', id: daily.id });
    if ('code' in entry) throw new Error(`remote.get failed: ${entry.message}`);
    const stale = entry;
    const cases: ReadonlyArray<[ErrorCode, string, () => unknown]> = [
      ['invalid_prompt', 'schedule_create', () => h.svc.callTool('s1', 'schedule_create', { ...base, prompt: ' ', after_seconds: 60 })],
      ['invalid_selector', 'remote.list', () => h.svc.remote.list(5 as unknown as { sessionId: string })],
      ['invalid_rule', 'remote.history', () => h.svc.remote.history({ sessionId: 's1', id: daily.id, limit: 0 })],
      [
        'invalid_time_zone',
        'schedule_create',
        () => h.svc.callTool('s1', 'schedule_create', { ...base, daily: { time: '09:00:00', time_zone: 'EST' } }),
      ],
      ['not_future', 'schedule_create', () => h.svc.callTool('s1', 'schedule_create', { ...base, at: '2020-01-01T00:00:00Z' })],
      [
        'time_out_of_range',
        'schedule_create',
        () => h.svc.callTool('s1', 'schedule_create', { ...base, cron: { expression: '0 0 30 2 *', time_zone: 'UTC' } }),
      ],
      ['schedule_not_found', 'schedule_delete', () => h.svc.callTool('s1', 'schedule_delete', { id: 'sch_99' })],
      ['schedule_ended', 'schedule_update', () => h.svc.callTool('s1', 'schedule_update', { id: oneShot.id, title: 'again' })],
      [
        'schedule_conflict',
        'remote.update',
        async () => {
          await h.svc.remote.update({ sessionId: 's1', id: daily.id, expected: stale.record, title: 'first edit' });
          return h.svc.remote.update({ sessionId: 's1', id: daily.id, expected: stale.record, title: 'lost edit' });
        },
      ],
      [
        'delivery_cursor_not_found',
        'remote.history',
        () => h.svc.remote.history({ sessionId: 's1', id: oneShot.id, limit: 5, before: 'nope' }),
      ],
      [
        'persistence_uncertain',
        'schedule_create',
        () => {
          storage.failNextCommit();
          return h.svc.callTool('s1', 'schedule_create', { ...base, after_seconds: 60 });
        },
      ],
      [
        'idempotency_conflict',
        'schedule_create',
        async () => {
          await h.svc.callTool('s1', 'schedule_create', { ...base, after_seconds: 60 }, { callId: 'call-1' });
          return h.svc.callTool('s1', 'schedule_create', { ...base, after_seconds: 120 }, { callId: 'call-1' });
        },
      ],
      ['unknown_tool', 'callTool', () => h.svc.callTool('s1', 'schedule_frobnicate', {})],
      [
        'storage_locked',
        'jsonFileStorage',
        async () => {
          const dir = mkdtempSync(join(tmpdir(), 'errors-doc-'));
          const path = join(dir, 'schedule.json');
          const first = api.jsonFileStorage({ path });
          await first.open();
          try {
            return await api.jsonFileStorage({ path }).open();
          } finally {
            await first.close();
            rmSync(dir, { recursive: true, force: true });
          }
        },
      ],
      ['corrupt_schedule_log', 'decodeScheduleChange', () => api.decodeScheduleChange({ version: 2 })],
      [
        'corrupt_schedule_log',
        'createScheduleService',
        () =>
          createScheduleService({
            sessions: createFakeSessions(),
            storage: memoryStorage({ version: 99, tasks: [] }),
            clock: createManualClock('2030-01-01T00:00:00Z'),
          }),
      ],
      [
        'owner_unavailable',
        'createClusterService',
        async () => {
          // A Host that holds no shard (its keeper never stepped), alone: nobody takes the routed call
          // (a write: a read of the Session would be answered from the schema).
          const schema = randomSchema();
          pglite.schemas.push(schema);
          const host = await postgresApi.createClusterService({
            pool: pglite.pool,
            schema,
            hostId: 'lonely-host',
            sessions: createFakeSessions(),
            clock: createManualClock('2030-01-01T00:00:00Z'),
            logger: { warn() {}, error() {} },
            autoStart: false,
            keeperPool: pglite.pool,
            routing: { timeoutMs: 200, pollMs: 20, listen: pgliteListener(() => pglite.db) },
          });
          try {
            return await host.callTool('s1', 'schedule_delete', { id: 'sch_1' });
          } finally {
            await host.close();
          }
        },
      ],
      [
        'internal_error',
        'callTool',
        async () => {
          const closed = await createScheduleService({
            sessions: createFakeSessions(),
            storage: memoryStorage(),
            clock: createManualClock('2030-01-01T00:00:00Z'),
          });
          await closed.close();
          return closed.callTool('s1', 'schedule_list', {});
        },
      ],
    ];
    for (const [code, call, run] of cases) {
      expect(ERROR_CATALOG[code].answeredBy, `${code} is answered by ${call}`).toContain(call);
      expect(await codeOf(run), `${call} → ${code}`).toBe(code);
    }
    expect(new Set(cases.map(([code]) => code))).toEqual(new Set(ERROR_CODES));
  });
});

// The remote namespace follows one rule for every method: a request it refuses is answered,
// never rejected — `{code, message}`, and for `delete` `{id?, deleted: false, code, message}` —
// and an answer quotes at most a short excerpt of anything the caller sent, however large,
// deep or cyclic. Every call here must resolve to a small, serialisable value and write nothing.
import { memoryStorage } from '../../src/adapters/memoryStorage.ts';
import type { ScheduleService } from '../../src/service.ts';
import { closeAll, create, harness } from '../support/harness.ts';

afterEach(closeAll);

/** Largest serialised answer a refusal may have: a message of a few short quotes. */
const MAX_ANSWER_CHARS = 1_000;

type Method = 'get' | 'list' | 'history' | 'update' | 'delete';
const METHODS: readonly Method[] = ['get', 'list', 'history', 'update', 'delete'];

/** Calls a remote method with whatever the caller hands over (untyped callers exist: JSON, other languages). */
const call = (svc: ScheduleService, method: Method, request: unknown): Promise<unknown> =>
  (svc.remote[method] as (request: unknown) => Promise<unknown>)(request);

function nested(depth: number, wrap: (inner: unknown) => unknown): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = wrap(value);
  return value;
}

function cyclic(): Record<string, unknown> {
  const value: Record<string, unknown> = { name: 'loop' };
  value.self = value;
  return value;
}

/** Values no task id can be: huge, deep, cyclic, or not JSON at all. */
const HOSTILE_IDS: ReadonlyArray<[string, () => unknown]> = [
  ['a 1 MB string', () => 'x'.repeat(1_000_000)],
  ['a cyclic object', cyclic],
  ['an object 100,000 levels deep', () => nested(100_000, (inner) => ({ a: inner }))],
  ['an array 100,000 levels deep', () => nested(100_000, (inner) => [inner])],
  ['an array of 1,000,000 numbers', () => Array.from({ length: 1_000_000 }, (_, i) => i)],
  ['a BigInt', () => 10n ** 400n],
  ['a symbol with a long description', () => Symbol('s'.repeat(100_000))],
  ['a function', () => () => 'f'],
];

/** Requests that are not an object at all. */
const NOT_OBJECTS: ReadonlyArray<[string, unknown]> = [
  ['a number', 5],
  ['a string', 'sch_1'],
  ['null', null],
  ['undefined', undefined],
  ['an array', [{ sessionId: 's1' }]],
  ['a Map', new Map([['sessionId', 's1']])],
];

function requestFor(method: Method, id: unknown, expected: unknown): Record<string, unknown> {
  switch (method) {
    case 'list':
      return { sessionId: id };
    case 'history':
      return { sessionId: 's1', id, limit: 10 };
    case 'update':
      return { sessionId: 's1', id, expected, title: 'new' };
    default:
      return { sessionId: 's1', id };
  }
}

/** Resolves (a rejection fails the test), serialises, and returns the answer with its JSON text. */
async function answerOf(svc: ScheduleService, method: Method, request: unknown): Promise<{ value: Record<string, unknown>; text: string }> {
  const value = await call(svc, method, request);
  const text = JSON.stringify(value);
  expect(typeof value === 'object' && value !== null, `remote.${method} answered ${text}`).toBe(true);
  return { value: value as Record<string, unknown>, text };
}

function expectRefusal(method: Method, answer: { value: Record<string, unknown>; text: string }, code: string): void {
  expect(answer.text.length, `remote.${method} answered ${answer.text.slice(0, 200)}…`).toBeLessThanOrEqual(MAX_ANSWER_CHARS);
  expect(answer.value).toMatchObject({ code, message: expect.any(String) });
  if (method === 'delete') expect(answer.value.deleted).toBe(false);
}

describe('the remote namespace answers every refused request the same way', () => {
  it.each(NOT_OBJECTS)('a request that is %s is answered invalid_selector by every method, never rejected', async (_name, request) => {
    const h = await harness({ storage: memoryStorage() });
    for (const method of METHODS) {
      const answer = await answerOf(h.svc, method, request);
      expectRefusal(method, answer, 'invalid_selector');
      expect(answer.value.message).toContain(`remote.${method}`);
    }
    expect(h.logs).toEqual([]);
  });

  it('a member a method does not take is refused by every method, naming at most five of them', async () => {
    const h = await harness();
    const v = await create(h, 's1', { after_seconds: 60 });
    const expected = (await h.svc.remote.catalog())[0]?.record;
    const extra = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`extra_${i}_${'k'.repeat(100)}`, i]));
    for (const method of METHODS) {
      const answer = await answerOf(h.svc, method, { ...requestFor(method, v.id, expected), ...extra });
      expectRefusal(method, answer, 'invalid_selector');
      expect(answer.value.message).toContain('9995 more');
    }
    expect(await h.svc.remote.catalog()).toHaveLength(1);
  });

  it('a Session id that is not a string is refused by every method', async () => {
    const h = await harness();
    await create(h, 's1', { after_seconds: 60 });
    for (const sessionId of [undefined, 5, { id: 's1' }, 'x'.repeat(1_000_000)]) {
      for (const method of METHODS) {
        const request = { ...requestFor(method, 'sch_1', {}), sessionId };
        const answer = await answerOf(h.svc, method, request);
        if (typeof sessionId === 'string') {
          // A long string is a Session without tasks: an empty list, or a task not found there.
          if (method === 'list') expect(answer.value).toEqual([]);
          else expectRefusal(method, answer, 'schedule_not_found');
        } else {
          expectRefusal(method, answer, 'invalid_selector');
        }
      }
    }
  });
});

describe('an id the caller sends is quoted, never echoed whole', () => {
  it.each(HOSTILE_IDS)('%s as the id: every method answers schedule_not_found in under 1,000 characters', async (_name, make) => {
    const storage = memoryStorage();
    const h = await harness({ storage });
    const v = await create(h, 's1', { after_seconds: 60 });
    const expected = (await h.svc.remote.catalog())[0]?.record;
    const writes = storage.commitCount;
    for (const method of METHODS.filter((m) => m !== 'list')) {
      const answer = await answerOf(h.svc, method, requestFor(method, make(), expected));
      expectRefusal(method, answer, 'schedule_not_found');
    }
    expect(storage.commitCount).toBe(writes);
    expect(h.logs).toEqual([]);
    expect(await h.svc.remote.get({ sessionId: 's1', id: v.id })).toMatchObject({ status: 'active', record: { id: v.id } });
  });

  it('delete echoes an id that can be a task id, and leaves out any other', async () => {
    const h = await harness();
    const v = await create(h, 's1', { after_seconds: 60 });
    expect(await h.svc.remote.delete({ sessionId: 's1', id: 'sch_99' })).toEqual({
      id: 'sch_99',
      deleted: false,
      code: 'schedule_not_found',
      message: expect.stringContaining('"sch_99"'),
    });
    const long = 'y'.repeat(129);
    const answer = await h.svc.remote.delete({ sessionId: 's1', id: long });
    expect(answer).not.toHaveProperty('id');
    expect(answer).toMatchObject({ deleted: false, code: 'schedule_not_found' });
    expect(await h.svc.remote.delete({ sessionId: 's1', id: v.id })).toEqual({ id: v.id, deleted: true });
  });

  it('the schedule_delete tool echoes the same ids as remote.delete, and never a huge one', async () => {
    const h = await harness();
    expect(await h.svc.callTool('s1', 'schedule_delete', { id: 'sch_99' })).toEqual({
      id: 'sch_99',
      deleted: false,
      code: 'schedule_not_found',
    });
    const answer = await h.svc.callTool('s1', 'schedule_delete', { id: 'z'.repeat(1_000_000) });
    expect(answer).toEqual({ deleted: false, code: 'schedule_not_found' });
    expect(JSON.stringify(answer).length).toBeLessThan(MAX_ANSWER_CHARS);
  });

  it('an id that names no task of the Session answers the same code from every method', async () => {
    const h = await harness();
    const v = await create(h, 's2', { after_seconds: 60 });
    const expected = (await h.svc.remote.catalog())[0]?.record;
    for (const method of METHODS.filter((m) => m !== 'list')) {
      for (const id of [v.id, 'sch_99', undefined, 42]) {
        expectRefusal(method, await answerOf(h.svc, method, requestFor(method, id, expected)), 'schedule_not_found');
      }
    }
  });
});

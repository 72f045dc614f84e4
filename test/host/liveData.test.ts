// The web page's coalesced loader (src/console/static/liveData.js), on fake timers with a load whose
// answers the test releases: an answer is applied only while it answers the path the controls
// ask for, never dropped because a change arrived meanwhile; changes while a request is out
// cause one more request once it is back and the interval has passed, however many there were;
// `reload` skips the interval; a failed load is tried again only after the next change; and the
// throttle runs at most once per interval, with the last call never lost.

interface Refresher {
  want(path: string | null, meta?: unknown): void;
  changed(): void;
  reload(): void;
  stop(): void;
}
interface LiveData {
  createRefresher(apply: (state: unknown) => void, options: { gapMs?: number; load: (path: string) => Promise<unknown> }): Refresher;
  throttle(fn: () => void, gapMs?: number): (() => void) & { cancel(): void };
}

const { createRefresher, throttle } = (await import(new URL('../../src/console/static/liveData.js', import.meta.url).href)) as LiveData;

/** A load whose requests wait until the test answers them. */
function heldLoad() {
  const requests: { path: string; answer(value: unknown): void; fail(error: unknown): void }[] = [];
  const load = (path: string) =>
    new Promise((resolve, reject) => {
      requests.push({ path, answer: resolve, fail: reject });
    });
  return { requests, load };
}

const settle = () => vi.advanceTimersByTimeAsync(0);

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('createRefresher', () => {
  it('applies an answer only while it answers the path asked for', async () => {
    const { requests, load } = heldLoad();
    const applied: unknown[] = [];
    const r = createRefresher((s) => applied.push(s), { load });
    r.want('/a', 0);
    r.want('/b', 1);
    expect(requests.map((q) => q.path)).toEqual(['/a', '/b']);
    requests[0]?.answer('A');
    await settle();
    expect(applied).toEqual([]);
    requests[1]?.answer('B');
    await settle();
    expect(applied).toEqual([{ data: 'B', error: null, path: '/b', meta: 1 }]);
  });

  it('keeps an answer that changes overtook, and follows it with one refresh after the interval', async () => {
    const { requests, load } = heldLoad();
    const applied: unknown[] = [];
    const r = createRefresher((s) => applied.push(s), { load, gapMs: 1_000 });
    r.want('/a');
    for (let i = 0; i < 50; i++) r.changed();
    expect(requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(300);
    requests[0]?.answer('old');
    await settle();
    expect(applied).toEqual([{ data: 'old', error: null, path: '/a', meta: undefined }]);
    expect(requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(699);
    expect(requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(requests).toHaveLength(2);
    requests[1]?.answer('new');
    await settle();
    expect(applied.at(-1)).toEqual({ data: 'new', error: null, path: '/a', meta: undefined });
    // Nothing changed since: no more requests.
    await vi.advanceTimersByTimeAsync(5_000);
    expect(requests).toHaveLength(2);
  });

  it('reloads at once on reload, and after a failure only on the next change', async () => {
    const { requests, load } = heldLoad();
    const applied: unknown[] = [];
    const r = createRefresher((s) => applied.push(typeof s === 'function' ? s({ data: 'kept' }) : s), { load, gapMs: 1_000 });
    r.want('/a');
    requests[0]?.answer('A');
    await settle();
    r.reload();
    expect(requests).toHaveLength(2);
    requests[1]?.fail(new Error('down'));
    await settle();
    expect(applied.at(-1)).toMatchObject({ data: 'kept', errorPath: '/a' });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(requests).toHaveLength(2);
    r.changed();
    expect(requests).toHaveLength(3);
    r.stop();
  });
});

describe('throttle', () => {
  it('runs at once, then at most once per interval, and runs the last call of an interval', async () => {
    const calls: number[] = [];
    const f = throttle(() => calls.push(Date.now()), 1_000);
    const start = Date.now();
    f();
    f();
    f();
    expect(calls).toEqual([start]);
    await vi.advanceTimersByTimeAsync(999);
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toEqual([start, start + 1_000]);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(calls).toHaveLength(2);
  });
});

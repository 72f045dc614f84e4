// Quoting received values in messages: JSON for JSON values, cut at the limit, and bounded work
// for anything else — huge, deep, cyclic or hostile values (a Proxy counts what is read).
import fc from 'fast-check';
import { describeValue } from '../../src/domain/args/argShape.ts';
import { quoteValue } from '../../src/domain/args/quote.ts';

const MAX = 60;

/** What a plain JSON value must read as: its JSON text, cut at the limit. */
const cut = (text: string): string => (text.length > MAX ? `${text.slice(0, MAX)}…` : text);

/** An endless, lazily built object (every member is another such object); counts each trap call. */
function endless(): { value: object; reads: () => number } {
  let reads = 0;
  const handler: ProxyHandler<object> = {
    ownKeys: () => {
      reads++;
      return ['a', 'b'];
    },
    getOwnPropertyDescriptor: () => {
      reads++;
      return { value: new Proxy({}, handler), enumerable: true, configurable: true, writable: true };
    },
    get: () => {
      reads++;
      return new Proxy({}, handler);
    },
    has: () => {
      reads++;
      return true;
    },
  };
  return { value: new Proxy({}, handler), reads: () => reads };
}

function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = { a: [value] };
  return value;
}

describe('describeValue quotes a received value in at most 60 characters', () => {
  it('reads a JSON value exactly as JSON.stringify writes it, cut at 60 characters', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(describeValue(value)).toBe(cut(JSON.stringify(value)));
      }),
      { numRuns: 500 },
    );
  });

  it.each<[string, () => unknown]>([
    ['a 1 MB string', () => 'x'.repeat(1_000_000)],
    ['a 1 MB string of characters JSON escapes', () => '\n\u0000"'.repeat(300_000)],
    ['an object nested 1,000,000 deep', () => nested(1_000_000)],
    ['an array of 1,000,000 items', () => Array.from({ length: 1_000_000 }, (_, i) => i)],
    ['an object with 100,000 members', () => Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i]))],
    ['a key of 1 MB', () => ({ ['k'.repeat(1_000_000)]: 1 })],
    ['a huge BigInt', () => 7n ** 100_000n],
    ['a symbol with a 1 MB description', () => Symbol('s'.repeat(1_000_000))],
  ])('%s reads as a short excerpt', (_name, make) => {
    const text = describeValue(make());
    expect(text.length).toBeLessThanOrEqual(MAX + 1);
    expect(text.length).toBeGreaterThan(0);
  });

  it('never reads more of an endless value than the excerpt needs', () => {
    const { value, reads } = endless();
    expect(describeValue(value).length).toBeLessThanOrEqual(MAX + 1);
    expect(reads()).toBeLessThan(500);
  });

  it('shows a cycle instead of following it, and never runs toJSON or a getter', () => {
    const loop: Record<string, unknown> = { name: 'loop' };
    loop.self = loop;
    expect(describeValue(loop)).toBe('{"name":"loop","self":"[circular]"}');
    let ran = 0;
    const hostile = {
      toJSON: () => {
        ran++;
        return 'replaced';
      },
      get secret() {
        ran++;
        return 'read';
      },
    };
    expect(describeValue(hostile)).toBe('{"secret":"[getter]"}');
    expect(ran).toBe(0);
  });

  it('names values that are not JSON', () => {
    expect(describeValue(undefined)).toBe('nothing');
    expect(describeValue(5n)).toBe('5n');
    expect(describeValue(Symbol('s'))).toBe('Symbol(s)');
    expect(describeValue(() => 1)).toBe('a function');
    expect(describeValue(new Date(Date.UTC(2030, 0, 1)))).toBe('"2030-01-01T00:00:00.000Z"');
    expect(describeValue([undefined, () => 1, Number.NaN])).toBe('[null,null,null]');
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    expect(describeValue(revoked.proxy)).toBe('an unreadable object');
  });

  it('quoteValue takes any limit', () => {
    expect(quoteValue('abcdef', 3)).toBe('"ab…');
    expect(quoteValue({ a: 1 }, 100)).toBe('{"a":1}');
  });
});

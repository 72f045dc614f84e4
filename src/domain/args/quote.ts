// Quoting received values in error messages with bounded work. A caller may send anything — a
// megabyte string, an array of a million items, an object nested 100,000 deep, a cycle, a BigInt,
// a Proxy — and the message must still be short and must never run the caller's code (`toJSON`,
// getters) or recurse as deep as the value goes. The rendering is JSON for JSON values, so a
// short plain value reads exactly as `JSON.stringify` writes it; it stops as soon as the excerpt
// is full, so how much of the value it reads depends on the excerpt's length, not the value's size.

/** Members or items read per object or array; the excerpt is normally full long before. */
const MAX_ENTRIES = 64;

/** Thrown (and caught by `quoteValue`) when the excerpt is full: rendering stops there. */
const FULL: unique symbol = Symbol('excerpt full');

/** BigInts beyond ±10^60 are described by size, not printed (printing a huge one costs its size). */
const BIGINT_LIMIT = 10n ** 60n;

/**
 * Renders `value` in at most `max` characters, followed by `…` when cut: JSON for JSON values,
 * `5n` for a BigInt, `Symbol(…)`, `a function`, `nothing` for `undefined`. Reads only own data
 * members (a getter reads as `"[getter]"`; `toJSON` is ignored except a Date's ISO text), at most
 * 64 per object or array, and never deeper than the excerpt is long; a cycle reads `"[circular]"`.
 */
export function quoteValue(value: unknown, max: number): string {
  if (value === undefined) return 'nothing';
  const out = new Excerpt(max);
  try {
    render(value, out, []);
  } catch (error) {
    if (error !== FULL) return unreadable(value);
  }
  return out.text();
}

/** A string builder that throws `FULL` once it holds more than `max` characters. */
class Excerpt {
  private readonly parts: string[] = [];
  private length = 0;

  constructor(private readonly max: number) {}

  /** Characters that still fit before the excerpt is known to be cut. */
  get room(): number {
    return this.max + 1 - this.length;
  }

  push(text: string): void {
    const piece = text.length > this.room ? text.slice(0, this.room) : text;
    this.parts.push(piece);
    this.length += piece.length;
    if (this.length > this.max) throw FULL;
  }

  text(): string {
    const text = this.parts.join('');
    return text.length > this.max ? `${text.slice(0, this.max)}…` : text;
  }
}

/** The JSON-like text of a primitive (a string cut to `room` before it is escaped), or undefined for an object. */
function primitiveText(value: unknown, room: number): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value.length > room ? value.slice(0, room) : value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return String(value);
    case 'bigint':
      return value < BIGINT_LIMIT && value > -BIGINT_LIMIT ? `${value}n` : 'a BigInt of more than 60 digits';
    case 'symbol': {
      const description = value.description ?? '';
      return `Symbol(${description.length > room ? description.slice(0, room) : description})`;
    }
    case 'function':
      return 'a function';
    case 'undefined':
      return 'null';
  }
  return value === null ? 'null' : undefined;
}

function render(value: unknown, out: Excerpt, ancestors: object[]): void {
  const text = primitiveText(value, out.room);
  if (text === undefined) renderObject(value as object, out, ancestors);
  else out.push(text);
}

function renderObject(value: object, out: Excerpt, ancestors: object[]): void {
  if (ancestors.includes(value)) {
    out.push('"[circular]"');
  } else if (value instanceof Date) {
    out.push(Number.isNaN(value.getTime()) ? 'null' : JSON.stringify(value.toISOString()));
  } else if (unboxed(value) !== undefined) {
    render(unboxed(value), out, ancestors);
  } else {
    ancestors.push(value);
    if (Array.isArray(value)) renderItems(value, out, ancestors);
    else renderMembers(value, out, ancestors);
    ancestors.pop();
  }
}

function renderItems(value: readonly unknown[], out: Excerpt, ancestors: object[]): void {
  out.push('[');
  const shown = Math.min(value.length, MAX_ENTRIES);
  for (let i = 0; i < shown; i++) {
    if (i > 0) out.push(',');
    const item = dataMember(value, String(i));
    // As in JSON: a hole, a function or a symbol in an array reads as null.
    render(typeof item === 'function' || typeof item === 'symbol' ? null : item, out, ancestors);
  }
  if (value.length > shown) out.push(',…');
  out.push(']');
}

function renderMembers(value: object, out: Excerpt, ancestors: object[]): void {
  out.push('{');
  let shown = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (shown === MAX_ENTRIES) {
      out.push(',…');
      break;
    }
    const member = dataMember(value, key);
    // As in JSON: members holding undefined, a function or a symbol are left out.
    if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
    out.push(`${shown > 0 ? ',' : ''}${primitiveText(key, out.room)}:`);
    render(member, out, ancestors);
    shown++;
  }
  out.push('}');
}

/** An own data member's value; a getter is never called. */
function dataMember(obj: object, key: string): unknown {
  const descriptor = Object.getOwnPropertyDescriptor(obj, key);
  if (descriptor === undefined) return undefined;
  return 'value' in descriptor ? descriptor.value : '[getter]';
}

/** The primitive inside a boxed Number, String, Boolean or BigInt (read as JSON reads it), or undefined. */
function unboxed(value: object): unknown {
  if (value instanceof Number) return Number.prototype.valueOf.call(value);
  if (value instanceof String) return String.prototype.valueOf.call(value);
  if (value instanceof Boolean) return Boolean.prototype.valueOf.call(value);
  if (value instanceof BigInt) return BigInt.prototype.valueOf.call(value);
  return undefined;
}

/** Something that could not be read at all (a Proxy whose traps throw, a revoked Proxy). */
const unreadable = (value: unknown): string => `an unreadable ${typeof value}`;

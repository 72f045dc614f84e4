// Complete-record equality for the remote update's compare-and-set (docs/management.md): the stored record
// equals `expected` when both have the same members with the same values, in any key order.
import type { ScheduleRecord } from './types.ts';

function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** True when `expected` is exactly the stored record (members and values; key order is free). */
export const recordsEqual = (stored: ScheduleRecord, expected: unknown): boolean => deepEqual(stored, expected);

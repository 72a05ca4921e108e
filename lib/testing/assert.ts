import assert from 'node:assert/strict';

/**
 * The value as plain data: arrays and objects copied member by member, members whose value is `undefined` left out
 * (JSON's view, and jest's `toEqual`'s). A store may return class instances or leave optional members `undefined`;
 * the contracts only promise JSON-serialisable data. The copies are of this realm: a store that copies with
 * `structuredClone` under jest (whose tests run in a `vm` context) returns arrays of another realm's `Array`, which
 * `deepStrictEqual` would tell apart from a literal's although they print the same.
 */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return Array.from(value, plain);
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, plain(v)]),
  );
}

/** Asserts deep equality of `actual` and `expected` as plain data (see {@link plain}). */
export function equal(actual: unknown, expected: unknown, message?: string): void {
  assert.deepStrictEqual(plain(actual), plain(expected), message);
}

/** The members of `actual` that `shape` names, recursively for plain objects in `shape`. */
function picked(actual: unknown, shape: unknown): unknown {
  const isRecord = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (!isRecord(shape) || actual === null || typeof actual !== 'object') return actual;
  const from = actual as Record<string, unknown>;
  return Object.fromEntries(Object.entries(shape as object).map(([k, v]) => [k, picked(from[k], v)]));
}

/** Asserts that `actual` is an object holding at least the members of `shape` (jest's `toMatchObject`). */
export function matches(actual: unknown, shape: Record<string, unknown>, message?: string): void {
  assert.ok(actual !== null && typeof actual === 'object', message ?? `expected an object, got ${String(actual)}`);
  assert.deepStrictEqual(plain(picked(actual, shape)), plain(shape), message);
}

export { assert };

/** Plain objects (`{}` literals, `JSON.parse` output), as opposed to arrays, class instances and functions. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Merges configuration layers the way `loadConfig` merges a configuration over the defaults: plain objects merge
 * member by member at every depth; anything else in a later layer (arrays such as `clients`, strings, numbers,
 * `false`, class instances such as a logger or a Redis client) replaces what an earlier layer had. `undefined`
 * members are skipped. The layers are not mutated; the result shares no plain object or array with them.
 *
 * @example
 * ```ts
 * mergeConfig({ issuer, graphql: { typeDefs, corsOrigins: ['http://localhost:8080'] } },
 *   { graphql: { introspection: { enabled: true } } });
 * // → { issuer, graphql: { typeDefs, corsOrigins: ['http://localhost:8080'], introspection: { enabled: true } } }
 * ```
 */
export function mergeConfig<T extends object>(
  base: T,
  ...layers: ReadonlyArray<Record<string, unknown> | Partial<T>>
): T {
  let out: unknown = cloneData(base);
  for (const layer of layers) out = mergeValue(out, layer);
  return out as T;
}

/** Deep-clones plain objects and arrays; keeps class instances and functions by reference. */
export function cloneData<T>(value: T): T {
  if (Array.isArray(value)) return value.map(cloneData) as T;
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cloneData(v)])) as T;
  return value;
}

function mergeValue(base: unknown, over: unknown): unknown {
  if (over === undefined) return base;
  if (!isPlainObject(base) || !isPlainObject(over)) return cloneData(over);
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    // A "__proto__" member of JSON.parse output stays an own member (assigning it would set the prototype instead,
    // hiding it from the check that reports unknown options).
    const merged = mergeValue(Object.hasOwn(base, key) ? base[key] : undefined, value);
    if (value !== undefined)
      Object.defineProperty(out, key, { value: merged, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

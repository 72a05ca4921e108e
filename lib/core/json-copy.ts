/**
 * A deep copy of `value` equal to `JSON.parse(JSON.stringify(value))`, made without the text in between: the memory
 * storage keeps and hands out such copies (each read a fresh object a caller may mutate; the store holds what the
 * Redis storage would hold after its JSON round trip), at about a quarter of the CPU time of `JSON.parse` on this
 * machine for an oidc-provider client or grant payload.
 *
 * JSON's rules (ECMA-262 `JSON.stringify`): `toJSON` is called (a `Date` becomes its ISO string); a non-finite number
 * becomes `null`; an object member whose value is `undefined`, a function or a symbol is left out, an array element of
 * those becomes `null`; only own enumerable string keys are copied (a `__proto__` key stays an own member, as
 * `JSON.parse` makes it, never the copy's prototype). Objects other than plain objects and arrays (a `Map`, a class
 * instance, a boxed primitive) take the JSON round trip itself, so the result is the same in every case.
 *
 * @throws TypeError for a `bigint` or a circular structure, like `JSON.stringify` (the message differs).
 * @returns `undefined` where `JSON.stringify` returns `undefined` (a top-level `undefined`, function or symbol).
 */
export function jsonCopy<T>(value: T): T {
  return copy(value, '', [], true) as T;
}

/**
 * `path`: the objects being copied around this one (a cycle check, as JSON's stack); `toJSON`: whether to call it (once
 * per value).
 */
function copy(value: unknown, key: string | number, path: object[], toJSON: boolean): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? (value === 0 ? 0 : value) : null; // -0 is written "0"
  if (typeof value !== 'object') {
    if (typeof value === 'bigint') throw new TypeError('Do not know how to serialize a BigInt');
    return undefined; // undefined, function, symbol
  }
  const method = toJSON ? (value as { toJSON?: unknown }).toJSON : undefined;
  if (typeof method === 'function') return copy(method.call(value, String(key)), key, path, false);
  const proto = Object.getPrototypeOf(value) as unknown;
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null)
    return JSON.parse(JSON.stringify(value, null, 0) ?? 'null') as unknown;
  if (path.includes(value)) throw new TypeError('Converting circular structure to JSON');
  path.push(value);
  let out: unknown;
  if (Array.isArray(value)) {
    const array = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) array[i] = copy(value[i], i, path, true) ?? null;
    out = array;
  } else {
    const object: Record<string, unknown> = {};
    for (const name of Object.keys(value)) {
      const member = copy((value as Record<string, unknown>)[name], name, path, true);
      if (member === undefined) continue;
      if (name === '__proto__')
        Object.defineProperty(object, name, { value: member, enumerable: true, writable: true, configurable: true });
      else object[name] = member;
    }
    out = object;
  }
  path.pop();
  return out;
}

/**
 * Jest runs each test file in a `vm` context whose `Object` is not Node's, while `structuredClone` is Node's: its
 * copies are objects of Node's realm. oidc-provider copies each configured client with `structuredClone` and then
 * requires the keys of its `jwks` to satisfy `value.constructor === Object`, which such a copy fails in Jest only
 * ("client JSON Web Key Set is invalid"); under plain Node there is one realm and the check passes. While the
 * returned function has not been called, `structuredClone` hands back its copy rebuilt in the test's realm
 * (plain objects and arrays; anything else as copied).
 *
 * @returns a function that restores the original `structuredClone`.
 */
export function structuredCloneInTestRealm(): () => void {
  const original = globalThis.structuredClone;
  const rebuild = (value: unknown): unknown => {
    if (Array.isArray(value)) return Array.from(value, rebuild);
    if (
      value !== null &&
      typeof value === 'object' &&
      Object.prototype.toString.call(value) === '[object Object]' &&
      (value as object).constructor?.name === 'Object'
    ) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rebuild(v)]));
    }
    return value;
  };
  globalThis.structuredClone = ((value: unknown, options?: Parameters<typeof structuredClone>[1]) =>
    rebuild(original(value, options))) as typeof structuredClone;
  return () => {
    globalThis.structuredClone = original;
  };
}

/**
 * A value kept for the length of one request, on the Node request object under a symbol of its own: every Koa
 * context made for that request (ours and oidc-provider's) shares it. A property rather than a WeakMap or WeakSet
 * entry, so a short-lived request leaves nothing in the garbage collector's weak tables (ephemerons it would
 * process on every collection).
 *
 * @param description the symbol's description (shows in a debugger).
 */
export function requestSlot<T>(description: string) {
  const key = Symbol(description);
  type Holder = Record<symbol, T | undefined>;
  return {
    get: (req: object): T | undefined => (req as Holder)[key],
    set: (req: object, value: T): void => {
      (req as Holder)[key] = value;
    },
  };
}

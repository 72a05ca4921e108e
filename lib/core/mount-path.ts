/**
 * A path of our pages as the browser must request it: under the issuer's path that the route table
 * (lib/http/routes.ts, `routeTable`) set as `ctx.mountPath` while our route runs (Koa's `koa-mount` convention).
 * Cookie paths, form actions and links use it. In lib/core because every layer that renders a page needs it
 * (lib/ui's frame as well as lib/http's routes), and lib/ui must not import lib/http.
 * @param ctx the Koa context of the request (any object: only `mountPath` is read).
 * @param path the path under the issuer's path, starting with `/` (or `''` for the mount point itself).
 */
export function mountedPath(ctx: object, path: string): string {
  return ((ctx as { mountPath?: string }).mountPath ?? '') + path;
}

import type { Context } from 'koa';
import { writeJsonError } from './json-error.js';

/** The order `Allow` lists methods in (the provider endpoints' order, `GET, HEAD, POST, OPTIONS`); others last. */
const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** The `Allow` value (RFC 9110 §10.2.1) of `methods`, in {@link METHOD_ORDER}. */
export function allowHeader(methods: Iterable<string>): string {
  const rank = (method: string) => METHOD_ORDER.indexOf(method) + 1 || METHOD_ORDER.length + 1;
  return [...new Set(methods)].sort((a, b) => rank(a) - rank(b)).join(', ');
}

/**
 * Answers a request whose method the endpoint does not serve itself, and returns `true`; `false` leaves it to the
 * endpoint. `allowed` is the endpoint's methods (`ENDPOINT_METHODS`, lib/http/paths.ts):
 * - a method not in `allowed`: `405 invalid_request` with `Allow` (RFC 9110 §15.5.6), as JSON (machines call
 *   these endpoints);
 * - `OPTIONS` that is not a CORS preflight (`Origin` and `Access-Control-Request-Method`, Fetch standard §3.2.2): `204`
 *   with
 *   `Allow` (RFC 9110 §9.3.7). oidc-provider answers only preflights, and a plain `OPTIONS` got Koa's text 404.
 */
export function answeredMethod(ctx: Context, allowed: ReadonlySet<string>): boolean {
  if (allowed.has(ctx.method) && (ctx.method !== 'OPTIONS' || isPreflight(ctx))) return false;
  const list = allowHeader(allowed);
  if (ctx.method !== 'OPTIONS') {
    writeJsonError(ctx, 405, 'invalid_request', `${ctx.method} is not allowed at this endpoint: use ${list}.`, {
      Allow: list,
    });
    return true;
  }
  ctx.set('Allow', list);
  ctx.status = 204;
  return true;
}

/** A CORS preflight (Fetch standard §3.2.2): `OPTIONS` with `Origin` and `Access-Control-Request-Method`. */
function isPreflight(ctx: Context): boolean {
  return ctx.get('Origin') !== '' && ctx.get('Access-Control-Request-Method') !== '';
}

import type { Context, Middleware, Next } from 'koa';
import { PortcullisError, STORAGE_RETRY_AFTER_SECONDS, type OAuthErrorCode } from '../core/errors.js';
import { noteStorageOutage, storageOutageOf } from '../core/outage-note.js';
import { writeJsonError } from './json-error.js';
import { allowHeader } from './allowed-methods.js';
import { setPageSecurityHeaders } from './security-headers.js';
import { errorPage } from './pages.js';
import { uiOf } from '../ui/ui.js';

/** Options of {@link writeError}. */
export interface WriteErrorOptions {
  /** Extra response headers, e.g. `{ 'Retry-After': '30' }` with a 429 or 503. @default {} */
  headers?: Readonly<Record<string, string>>;
  /**
   * Whether a browser (`Accept` prefers HTML) gets the error page. `false` for endpoints that only ever answer
   * JSON to machines (token, registration, discovery). @default true
   */
  page?: boolean;
}

/**
 * The one writer of OAuth error responses (RFC 6749 §5.2 body `{ error, error_description }`): answers `status`
 * with our error page for a browser (`Accept` prefers HTML, unless `options.page` is false), else the JSON body
 * with `Cache-Control: no-store`. `error` is typed {@link OAuthErrorCode}: registered values only (a rate limit
 * is 429 `temporarily_unavailable` with `Retry-After`, an unknown document 404 `invalid_request`).
 * @param description human-readable `error_description`; never a stack trace or a secret.
 */
export function writeError(
  ctx: Context,
  status: number,
  error: OAuthErrorCode,
  description: string,
  options: WriteErrorOptions = {},
): void {
  if (options.page === false || ctx.accepts('json', 'html') !== 'html')
    return writeJsonError(ctx, status, error, description, options.headers);
  ctx.status = status;
  for (const [name, value] of Object.entries(options.headers ?? {})) ctx.set(name, value);
  ctx.type = 'html';
  ctx.body = errorPage(setPageSecurityHeaders(ctx), error, description, { ui: uiOf(ctx) });
}

/**
 * The standalone server's answer for a path it does not serve: 404 `invalid_request` (RFC 6749 §5.2 body, the
 * registered error value our other 404s use; our error page for a browser). The path is not echoed.
 */
export function notFound(ctx: Context): void {
  writeError(ctx, 404, 'invalid_request', 'Not found: this server has no endpoint at this path.');
}

/** `405 invalid_request` with `Allow` (RFC 9110 §15.5.6) for a method our page at `ctx.path` does not answer. */
function methodNotAllowed(ctx: Context, allowed: readonly string[]): void {
  const list = allowHeader(allowed);
  writeError(ctx, 405, 'invalid_request', `${ctx.method} is not allowed at this path: use ${list}.`, {
    headers: { Allow: list },
  });
}

/**
 * Around our pages' routers (@koa/router, which leaves a method it has no route for to `next`, and Koa then answers a
 * plain-text 404): a method the path is routed for under other methods only (`ctx.matched`, the routes of these
 * routers that match the path) gets {@link methodNotAllowed}; a bodiless 405 or 404 a page answered (the logo) gets
 * our body. Anything else passes on untouched, so in a host app its own routes still run.
 */
export function refuseUnroutedMethods(route: Middleware): Middleware {
  return async function routeOrRefuseMethod(ctx: Context, next: Next) {
    const routed = ctx as Context & { matched?: Array<{ methods: string[] }> };
    const before = routed.matched?.length ?? 0;
    let passedOn = false;
    await route(ctx, () => {
      const allowed = [...new Set((routed.matched ?? []).slice(before).flatMap((layer) => layer.methods))];
      if (allowed.length > 0 && !allowed.includes(ctx.method)) return Promise.resolve(methodNotAllowed(ctx, allowed));
      passedOn = true;
      return next();
    });
    if (passedOn || ctx.body != null) return;
    if (ctx.status === 405) methodNotAllowed(ctx, ctx.response.get('Allow').split(/,\s*/));
    else if (ctx.status === 404) notFound(ctx);
  };
}

/**
 * Around an endpoint oidc-provider may have no route for (a feature that is off): its bodiless 404 becomes
 * {@link notFound}'s answer. Any answer with a body, or another status, is left as it is.
 */
export async function answerUnservedEndpoint(ctx: Context, next: Next): Promise<void> {
  await next();
  if (ctx.status === 404 && ctx.body == null) notFound(ctx);
}

/**
 * Last-resort handler for Portcullis' own routes: client errors keep their status and message, anything else
 * becomes a bare 500 with no stack trace or internal message. The error is re-emitted on the app for logging.
 */
export async function handleErrors(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
  } catch (err) {
    const e = err as {
      status?: number;
      statusCode?: number;
      expose?: boolean;
      message?: string;
      error_description?: string;
    };
    const status = e.status ?? e.statusCode ?? 500;
    const expose = status < 500 || e.expose === true;
    const headers =
      status === 503
        ? { 'Retry-After': STORAGE_RETRY_AFTER_SECONDS, ...(err instanceof PortcullisError ? err.headers : {}) }
        : undefined;
    const error = status === 503 ? 'temporarily_unavailable' : status < 500 ? 'invalid_request' : 'server_error';
    const description = expose
      ? (e.error_description ?? e.message ?? 'request refused')
      : 'The server could not complete the request.';
    const outage = storageOutageOf(err);
    if (outage) noteStorageOutage(ctx.req, outage);
    writeError(ctx, status, error, description, { headers });
    if (!expose) ctx.app.emit('error', err, ctx);
  }
}

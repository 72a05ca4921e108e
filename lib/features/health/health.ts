import type { Context, Middleware, Next } from 'koa';
import type { Storage } from '../../core/storage.js';

import { writeJsonError } from '../../http/json-error.js';
import { HEALTH_PATHS } from '../../http/paths.js';

/**
 * `GET /healthz`: 200 while the process serves requests. `GET /readyz`: 200 when the storage answers, else 503
 * (take the instance out of a load balancer). Bodies are small JSON documents; nothing is cached. Another method:
 * `405 invalid_request` with `Allow` (JSON: load balancers and monitors call these).
 */
export function healthEndpoints(storage: Storage): Middleware {
  return async function health(ctx: Context, next: Next) {
    if (ctx.path !== HEALTH_PATHS.live && ctx.path !== HEALTH_PATHS.ready) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      return writeJsonError(ctx, 405, 'invalid_request', `${ctx.method} is not allowed at this path: use GET, HEAD.`, {
        Allow: 'GET, HEAD',
      });
    }
    ctx.set('Cache-Control', 'no-store');
    if (ctx.path === HEALTH_PATHS.live) {
      ctx.body = { status: 'ok' };
      return;
    }
    try {
      await storage.ping();
      ctx.body = { status: 'ready', storage: 'ok' };
    } catch {
      ctx.status = 503;
      ctx.body = { status: 'unavailable', storage: 'unreachable' };
    }
  };
}

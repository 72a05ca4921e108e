import type { Context, Middleware, Next } from 'koa';
import { LOGO_PATH } from '../../ui/ui.js';
import type { UiSettings } from '../../ui/templates.js';

/** Serves `GET|HEAD /ui/logo`: the configured logo, or 404 without one. */
export function logoRoute(settings: UiSettings): Middleware {
  return function serveLogo(ctx: Context, next: Next) {
    if (ctx.path !== LOGO_PATH) return next();
    const logo = settings.logo;
    if (!logo || !['GET', 'HEAD'].includes(ctx.method)) {
      ctx.status = logo ? 405 : 404;
      if (logo) ctx.set('Allow', 'GET, HEAD');
      return;
    }
    ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cross-Origin-Resource-Policy', 'same-origin');
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.set('ETag', logo.etag);
    ctx.type = logo.type;
    if (ctx.get('if-none-match') === logo.etag) {
      ctx.status = 304;
      return;
    }
    ctx.status = 200;
    ctx.body = logo.body;
  };
}

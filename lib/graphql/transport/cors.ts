import type { Context } from 'koa';
import type { TransportSettings } from './settings.js';

/**
 * CORS for the configured origins only (`graphql.corsOrigins`): the allow and expose headers for one of them, and
 * the answer to its preflight (204; returns true, nothing else runs). Another origin gets no CORS header, so a
 * browser keeps the answer from its page. `Vary: Origin` whenever an Origin was sent.
 */
export function answerCors(settings: TransportSettings, ctx: Context): boolean {
  const origin = ctx.get('Origin');
  if (origin && settings.origins.has(origin)) {
    ctx.set('Access-Control-Allow-Origin', origin);
    ctx.set('Access-Control-Expose-Headers', 'Retry-After, WWW-Authenticate');
    ctx.vary('Origin');
    if (ctx.method === 'OPTIONS' && ctx.get('Access-Control-Request-Method')) {
      ctx.set('Access-Control-Allow-Methods', settings.allow);
      ctx.set('Access-Control-Allow-Headers', 'Content-Type, Authorization, DPoP');
      ctx.set('Access-Control-Max-Age', '600');
      ctx.status = 204;
      return true;
    }
  } else if (origin) {
    ctx.vary('Origin');
  }
  return false;
}

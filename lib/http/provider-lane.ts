import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Context, Middleware, Next } from 'koa';
import compose from 'koa-compose';
import { requestSlot } from '../core/request-slot.js';
import { PROVIDER_EXACT_PATHS } from './routes.js';

/** oidc-provider's Koa application, as this module uses it (its middleware array and its request listener). */
export interface ProviderApp {
  middleware: Middleware[];
  callback(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
}

type ProviderRequest = IncomingMessage & { baseUrl?: string; originalUrl?: string };

/** Marks a request the standalone listener handed straight to oidc-provider (it runs our guards inside its context). */
const direct = requestSlot<true>('portcullis.providerLane');

/**
 * How requests reach oidc-provider, which runs as its own Koa app (own cookie keys, own body parsing).
 *
 * - `route`: the route table's handler for provider paths (lib/http/routes.ts), inside a Koa app of ours or of
 *   the host: the request runs our guards in that app's context, then oidc-provider's app answers it in its own.
 * - `listener(app, guards)`: the standalone server's Node request listener. A request for a provider endpoint
 *   by its exact path (`/token`, `/userinfo`, JWKS, discovery, …) on an issuer without a path goes straight to
 *   oidc-provider's app, where `guards` (the route table's request log, UI context and issuer Host check, in that
 *   order) run first in its context: one Koa context per request instead of two, the same checks in the same
 *   order. Every other request goes to `app` (the route table).
 *
 * Errors: neither lane adds an error handler around oidc-provider (it answers its own errors; one escaping it
 * goes to its app's `error` event, as before). Call `lane()` before anything else calls `provider.callback()`:
 * the guard hook must be first in oidc-provider's middleware when it is composed.
 */
export function providerLane(provider: ProviderApp, prefix: string) {
  let guards: Middleware | undefined;
  provider.middleware.unshift(function standaloneGuards(ctx: Context, next: Next) {
    return guards && direct.get(ctx.req) ? guards(ctx, next) : next();
  });
  const callback = provider.callback();

  /** Route table handler: oidc-provider answers on the raw response (`ctx.respond = false`). */
  async function oidcProvider(ctx: Context): Promise<void> {
    // oidc-provider's URLs (discovery, redirects, registration_client_uri, DPoP htu) put its mount path before its
    // routes: `req.baseUrl` when `req.originalUrl` is unset (oidc-provider lib/helpers/oidc_context.js `urlFor`).
    const req = ctx.req as ProviderRequest;
    const saved = { baseUrl: req.baseUrl, originalUrl: req.originalUrl };
    req.baseUrl = prefix;
    req.originalUrl = undefined;
    ctx.respond = false;
    try {
      await callback(ctx.req, ctx.res);
    } finally {
      req.baseUrl = saved.baseUrl;
      req.originalUrl = saved.originalUrl;
    }
  }

  return {
    route: oidcProvider as Middleware,
    listener(app: RequestListener, standaloneGuards: readonly Middleware[]): RequestListener {
      guards = compose([...standaloneGuards]);
      return function portcullisListener(req, res) {
        const url = req.url ?? '';
        const query = url.indexOf('?');
        if (prefix !== '' || !PROVIDER_EXACT_PATHS.has(query === -1 ? url : url.slice(0, query))) return app(req, res);
        direct.set(req, true);
        (req as ProviderRequest).baseUrl = prefix;
        return callback(req, res);
      };
    },
  };
}

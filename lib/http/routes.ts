import type { Context, Middleware, Next } from 'koa';
import compose from 'koa-compose';
import { refuseMalformedQuery } from './form-encoding.js';
import { BODY_LIMITS } from './body-limit.js';

/**
 * The route table: every path Portcullis serves, and for each the ordered, named middleware that runs for it.
 * A request is dispatched after one lookup (its exact path, else its first path segment); a path that is not
 * Portcullis' runs none of our middleware and goes on to the host app (`next()`).
 *
 * Stack per kind of route (outermost first):
 * | route | middleware |
 * |---|---|
 * | health (`/healthz`, `/readyz`) | requestLog → health (any Host: load balancers probe by address) |
 * | provider endpoints, discovery, JWKS | requestLog → handleErrors → requireIssuerHost → oidcProvider (→ provider pre-middleware, {@link providerPreMiddleware}) |
 * | an endpoint's path in another case or with a trailing slash ({@link isEndpointVariant}) | requestLog → handleErrors → requireIssuerHost → 404 (`notFound`) |
 * | login/consent pages (`/interaction/…`) | requestLog → handleErrors → requireIssuerHost → interaction pages |
 * | account pages (`/account/…`) | requestLog → handleErrors → requireIssuerHost → account pages (their CSRF check inside) |
 * | logo (`/ui/logo`) | requestLog → handleErrors → requireIssuerHost → logo |
 * | GraphQL (`graphql.path`, `<path>/csrf-token`) | requestLog → handleErrors → requireIssuerHost → transport guard → bearer auth → document gate → Apollo |
 * | any other path | in a host app: none of ours (`next()`); in the standalone app (`server.app`, `listen`): requestLog → uiContext → 404 (`unmatched`, {@link unmatchedPaths}) |
 *
 * Every chain but health's has `uiContext` (the request's language and branding, lib/ui/ui.ts) right after
 * `requestLog`, and, in a host app, the adoption of the host's parsed body after `requireIssuerHost`.
 *
 * The standalone server (`server.listen`) hands a provider endpoint requested by its exact path straight to
 * oidc-provider's app, where requestLog → uiContext → requireIssuerHost run first in its own context
 * (lib/http/provider-lane.ts): the same guards in the same order, one Koa context instead of two.
 */

import {
  firstSegment, HEALTH_PATHS, isEndpointVariant, issuerPath, PAGE_PREFIXES, PATH_INSERTED_METADATA,
  PROVIDER_EXACT_PATHS, PROVIDER_SEGMENTS,
} from './paths.js';

export { BODY_LIMITS } from './body-limit.js';
export { providerPreMiddleware, UNSERVED_ENDPOINTS, type ProviderPreMiddleware } from './provider-routes.js';

export {
  CLIENT_AUTH_ENDPOINTS, DISCOVERY_PATHS, HEALTH_PATHS, isEndpointVariant, isReservedPath, issuerPath, PAGE_PREFIXES, PATH_INSERTED_METADATA, PROVIDER_EXACT_PATHS, PROVIDER_ROUTES,
} from './paths.js';

/**
 * A path of our pages as the browser must request it: under the issuer's path that {@link routeTable} set as
 * `ctx.mountPath` while our route runs (Koa's `koa-mount` convention). Cookie paths, form actions and links use it.
 */
export function mountedPath(ctx: object, path: string): string {
  return ((ctx as { mountPath?: string }).mountPath ?? '') + path;
}

/** The named middleware {@link routeTable} places; built by `createServer`. */
export interface RouteParts {
  /** The issuer's path (see {@link issuerPath}): `''` at the host root. */
  prefix?: string;
  requestLog: Middleware;
  handleErrors: Middleware;
  requireIssuerHost: Middleware;
  /**
   * Hands a body that a host app's parser already read to our parsers and oidc-provider, under the route's
   * body limit in bytes; `replayStream` on oidc-provider's routes (lib/http/host-body.ts).
   */
  adoptHostBody?: (limitBytes: number, replayStream?: boolean) => Middleware;
  health: Middleware;
  oidcProvider: Middleware;
  interactionPages: Middleware;
  accountPages: Middleware;
  /** The request's language and branding for every page (`uiContext`, lib/ui/ui.ts). */
  uiContext: Middleware;
  /** `/ui/logo`: the configured logo. */
  logo: Middleware;
  /**
   * The GraphQL endpoint's paths (`graphql.path` and its CSRF-token path, absolute on the host: they need not
   * be under the issuer's path) and chain (transport guard, bearer auth, gate, Apollo), when `graphql` is set.
   */
  graphql?: { paths: readonly string[]; chain: Middleware[] };
  /** Called when the host app mounted the middleware under a path that is not the issuer's (see {@link routeTable}). */
  misplacedMount?: Middleware;
  /**
   * Answers a variant of an endpoint's path ({@link isEndpointVariant}: another case, a trailing slash) that would
   * otherwise reach oidc-provider past our pre-middleware: 404 after the request log and the Host check. Without it
   * such a path goes on to the host (`next()`), never to oidc-provider.
   */
  notFound?: Middleware;
  /**
   * Runs for a path no route of ours serves: the standalone app's logged 404 ({@link unmatchedPaths}). Without it
   * (a host app's `server.middleware()`), such a path goes on to the host (`next()`) untouched.
   */
  unmatched?: Middleware;
}

/**
 * The standalone app's `unmatched` route ({@link RouteParts.unmatched}): a path no route serves is logged like every
 * request (with its request id) and answered by `notFound`. In a host app the host answers such paths, so only
 * `server.app` has it. No Host check: the path is not the authorization server's, whatever the Host.
 */
export function unmatchedPaths(parts: Pick<RouteParts, 'requestLog' | 'uiContext'> & { notFound: Middleware }): Middleware {
  return compose([parts.requestLog, parts.uiContext, parts.notFound]);
}

/** The path the client asked for, before any host middleware (koa-mount) rewrote `ctx.path`. */
function requestedPath(ctx: Context): string {
  const url = ctx.originalUrl;
  if (!url.startsWith('/')) return URL.canParse(url) ? new URL(url).pathname : ctx.path;
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

type Mounted = Context & { mountPath?: string };

/**
 * Runs `route` with `ctx.path` and `ctx.mountPath` set as it expects (as koa-mount does), and restores them
 * before the host app's `next` and after the route, so the host sees its own values.
 */
async function runAt(route: Middleware, ctx: Mounted, next: Next, path: string, mountPath: string): Promise<void> {
  const saved = { path: ctx.path, mountPath: ctx.mountPath };
  const set = (p: string, m: string | undefined) => { if (ctx.path !== p) ctx.path = p; ctx.mountPath = m; };
  set(path, mountPath);
  try {
    await route(ctx, async () => {
      set(saved.path, saved.mountPath);
      try { await next(); } finally { set(path, mountPath); }
    });
  } finally {
    set(saved.path, saved.mountPath);
  }
}

/**
 * Builds the dispatcher of {@link RouteParts}: one `Map` lookup by exact path, else by first path segment.
 *
 * Paths: the authorization server's routes, pages and health endpoints are under the issuer's path `prefix`
 * (`/auth/token`, `/auth/interaction/…`, `/auth/.well-known/openid-configuration`), plus RFC 8414's
 * path-inserted `/.well-known/oauth-authorization-server/auth` at the host root; GraphQL is at its own absolute
 * path. The dispatcher matches the path the client requested (`ctx.originalUrl`), so the middleware works at
 * the root of a host app (`app.use(server.middleware())`, the way that also serves the path-inserted metadata)
 * and under `koa-mount` at the issuer's path. While a route of ours runs, `ctx.path` is the path under the
 * prefix and `ctx.mountPath` the prefix, as with koa-mount; both are restored afterwards.
 * @returns a Koa middleware; unknown paths go to `parts.unmatched`, else call `next()` without running any of ours.
 */
export function routeTable(parts: RouteParts): Middleware {
  const prefix = parts.prefix ?? '';
  const passOn: Middleware = (_ctx, next) => next();
  const otherwise = parts.unmatched ?? passOn;
  // `replayStream`: oidc-provider reads the request stream itself (our pages and GraphQL take the parsed body).
  const guarded = (body: { limit: number; replayStream?: boolean }, ...handlers: Middleware[]) => compose([
    parts.requestLog, parts.uiContext, parts.handleErrors, parts.requireIssuerHost,
    ...(parts.adoptHostBody ? [parts.adoptHostBody(body.limit, body.replayStream)] : []), ...handlers,
  ]);
  const provider = guarded({ limit: BODY_LIMITS.provider, replayStream: true }, parts.oidcProvider);

  // Paths under the prefix (as oidc-provider's router and our page routers see them).
  const exact = new Map<string, Middleware>();
  for (const path of Object.values(HEALTH_PATHS)) exact.set(path, compose([parts.requestLog, parts.health]));
  for (const path of PROVIDER_EXACT_PATHS) exact.set(path, provider);

  // Sub-paths: resume (`/authorization/:uid`), RFC 7592 (`/registration/:id`), logout confirmation; pages (`pageEnd`: the standalone 404).
  const bySegment = new Map<string, Middleware>();
  for (const segment of PROVIDER_SEGMENTS) bySegment.set(segment, provider);
  const pageEnd = parts.unmatched && parts.notFound ? [parts.notFound] : [];
  const page = (route: Middleware) => guarded({ limit: BODY_LIMITS.pages }, refuseMalformedQuery, route, ...pageEnd);
  bySegment.set(PAGE_PREFIXES.interaction, page(parts.interactionPages));
  bySegment.set(PAGE_PREFIXES.account, page(parts.accountPages));
  bySegment.set(PAGE_PREFIXES.ui, page(parts.logo));
  // An endpoint's path in another case or with a trailing slash is refused: oidc-provider would serve it without
  // the pre-middleware keyed on the exact path.
  const variant = guarded({ limit: BODY_LIMITS.pages }, parts.notFound ?? passOn);
  const underPrefix = (path: string) => exact.get(path) ?? (isEndpointVariant(path) ? variant : bySegment.get(firstSegment(path)));

  // Absolute paths: GraphQL (which may sit outside the prefix), and the path-inserted metadata.
  const graphql = parts.graphql ? guarded({ limit: BODY_LIMITS.graphql }, ...parts.graphql.chain) : undefined;
  const graphqlPaths = new Set(parts.graphql?.paths ?? []);

  return function dispatchRoute(ctx: Mounted, next: Next) {
    const path = requestedPath(ctx);
    if (graphql && graphqlPaths.has(path)) return path === ctx.path && !ctx.mountPath ? graphql(ctx, next) : runAt(graphql, ctx, next, path, '');
    if (prefix === '') {
      // At the root (the standalone server, or a host app's root): the common case, one lookup.
      if (path === ctx.path) {
        const route = underPrefix(path);
        return route ? route(ctx, next) : otherwise(ctx, next);
      }
      const route = underPrefix(path);
      if (route) return runAt(route, ctx, next, path, '');
    } else if (path === PATH_INSERTED_METADATA + prefix) {
      return runAt(provider, ctx, next, PATH_INSERTED_METADATA, prefix);
    } else {
      const rest = path === prefix ? '/' : path.startsWith(`${prefix}/`) ? path.slice(prefix.length) : undefined;
      const route = rest === undefined ? undefined : underPrefix(rest);
      if (route) return runAt(route, ctx, next, rest!, prefix);
    }
    // A host mounted us (koa-mount) under a path that is not the issuer's: say so instead of a silent 404.
    if (parts.misplacedMount && ctx.path !== path && underPrefix(ctx.path)) return parts.misplacedMount(ctx, next);
    return otherwise(ctx, next);
  };
}

/** Answer when a host app mounted the middleware under a path that is not the issuer's. */
export function misplacedMountDescription(issuer: string): string {
  return `Portcullis is mounted under a path its issuer (${issuer}) does not name, so the URLs it publishes would not lead here. `
    + 'Mount server.middleware() at the root of the host app (app.use(server.middleware()): it serves under the issuer\'s path itself), '
    + `or with koa-mount at the issuer's path ${issuerPath(issuer) || '/'}.`;
}

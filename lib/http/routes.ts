import type { Context, Middleware, Next } from 'koa';
import compose from 'koa-compose';
import { refuseMalformedQuery } from './form-encoding.js';
import { BODY_LIMITS } from './body-limit.js';
import { refuseUnroutedMethods } from './error-handler.js';
import { ConfigError } from '../core/errors.js';
import type { FeatureRoute } from '../core/feature.js';

/**
 * The route table: every path Portcullis serves, and for each the ordered, named middleware that runs for it.
 * A request is dispatched after one lookup (its exact path, else its first path segment); a path that is not
 * Portcullis' runs none of our middleware and goes on to the host app (`next()`).
 *
 * Stack per kind of route (outermost first). The routes come from the features (lib/core/feature.ts `FeatureRoute`,
 * lib/features/<id>/index.ts); this table adds the guards, so their order is written here only:
 * | route | middleware |
 * |---|---|
 * | unguarded exact paths: health (`/healthz`, `/readyz`, feature `health`) | requestLog → the route's chain (any Host:
 * load balancers probe by address) |
 * | provider endpoints, discovery, JWKS | requestLog → uiContext → handleErrors → requireIssuerHost → adoptHostBody →
 * oidcProvider (→ provider pre-middleware, {@link providerPreMiddleware}) |
 * | an endpoint's path in another case or with a trailing slash ({@link isEndpointVariant}) | requestLog → uiContext →
 * handleErrors → requireIssuerHost → adoptHostBody → 404 (`notFound`) |
 * | pages, by first segment: `/interaction/…` (`sign-in`), `/account/…` (`self-service`, `passkeys`, `account`),
 * `/ui/logo` (`branding`) | requestLog → uiContext → handleErrors → requireIssuerHost → adoptHostBody →
 * refuseMalformedQuery → refuseUnroutedMethods(the segment's chains, in the features' order) → in the standalone app
 * `notFound` |
 * | absolute paths: GraphQL (`graphql.path`, `<path>/csrf-token`, feature `graphql`) | requestLog → uiContext →
 * handleErrors → requireIssuerHost → adoptHostBody → transport guard → bearer auth → document gate → Apollo |
 * | any other path | in a host app: none of ours (`next()`); in the standalone app (`server.app`, `listen`): requestLog
 * → uiContext → 404 (`unmatched`, {@link unmatchedPaths}) |
 *
 * `uiContext` is the request's language and branding (lib/ui/ui.ts); `adoptHostBody` runs in a host app only (the
 * host's parsed body, under the route's `bodyLimit`).
 *
 * The standalone server (`server.listen`) hands a provider endpoint requested by its exact path straight to
 * oidc-provider's app, where requestLog → uiContext → requireIssuerHost run first in its own context
 * (lib/http/provider-lane.ts): the same guards in the same order, one Koa context instead of two.
 */

import {
  firstSegment,
  isEndpointVariant,
  issuerPath,
  PATH_INSERTED_METADATA,
  PROVIDER_EXACT_PATHS,
  PROVIDER_SEGMENTS,
} from './paths.js';

export { BODY_LIMITS } from './body-limit.js';
export { providerPreMiddleware, type ProviderPreMiddleware } from './provider-routes.js';

export {
  CLIENT_AUTH_ENDPOINTS,
  DISCOVERY_PATHS,
  HEALTH_PATHS,
  isEndpointVariant,
  isReservedPath,
  issuerPath,
  PAGE_PREFIXES,
  PATH_INSERTED_METADATA,
  PROVIDER_EXACT_PATHS,
  PROVIDER_ROUTES,
} from './paths.js';

/** The named middleware {@link routeTable} places; built by the kernel (lib/kernel/portcullis-server.ts). */
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
  oidcProvider: Middleware;
  /** The request's language and branding for every page (`uiContext`, lib/ui/ui.ts). */
  uiContext: Middleware;
  /**
   * The features' routes (lib/core/feature.ts), in the features' order: health probes, the login and consent pages,
   * the account pages, the logo, GraphQL, … Routes on one first segment are pages: one chain, in that order.
   */
  routes: readonly FeatureRoute[];
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
export function unmatchedPaths(
  parts: Pick<RouteParts, 'requestLog' | 'uiContext'> & { notFound: Middleware },
): Middleware {
  return compose([parts.requestLog, parts.uiContext, parts.notFound]);
}

/** A chain as one middleware: itself when it has one. */
function one(chain: readonly Middleware[]): Middleware {
  return chain.length === 1 ? chain[0]! : compose([...chain]);
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
  const set = (p: string, m: string | undefined) => {
    if (ctx.path !== p) ctx.path = p;
    ctx.mountPath = m;
  };
  set(path, mountPath);
  try {
    await route(ctx, async () => {
      set(saved.path, saved.mountPath);
      try {
        await next();
      } finally {
        set(path, mountPath);
      }
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
  const guarded = (body: { limit: number; replayStream?: boolean }, ...handlers: Middleware[]) =>
    compose([
      parts.requestLog,
      parts.uiContext,
      parts.handleErrors,
      parts.requireIssuerHost,
      ...(parts.adoptHostBody ? [parts.adoptHostBody(body.limit, body.replayStream)] : []),
      ...handlers,
    ]);
  const provider = guarded({ limit: BODY_LIMITS.provider, replayStream: true }, parts.oidcProvider);
  const { exact, segments, absolute } = featureRoutes(parts.routes);
  const chainOf = (route: FeatureRoute) =>
    route.guarded === false
      ? compose([parts.requestLog, ...route.chain])
      : guarded({ limit: route.bodyLimit }, ...route.chain);

  // Paths under the prefix (as oidc-provider's router and our page routers see them).
  const byPath = new Map<string, Middleware>();
  for (const [path, route] of exact) byPath.set(path, chainOf(route));
  for (const path of PROVIDER_EXACT_PATHS) byPath.set(path, provider);

  // Sub-paths: resume (`/authorization/:uid`), RFC 7592 (`/registration/:id`), logout confirmation; pages (`pageEnd`:
  // the standalone 404).
  const bySegment = new Map<string, Middleware>();
  for (const segment of PROVIDER_SEGMENTS) bySegment.set(segment, provider);
  const pageEnd = parts.unmatched && parts.notFound ? [parts.notFound] : [];
  for (const [segment, routes] of segments) {
    const chain = one(routes.map((route) => one(route.chain)));
    const limit = Math.max(...routes.map((route) => route.bodyLimit));
    bySegment.set(segment, guarded({ limit }, refuseMalformedQuery, refuseUnroutedMethods(chain), ...pageEnd));
  }
  // An endpoint's path in another case or with a trailing slash is refused: oidc-provider would serve it without
  // the pre-middleware keyed on the exact path.
  const variant = guarded({ limit: BODY_LIMITS.pages }, parts.notFound ?? passOn);
  const underPrefix = (path: string) =>
    byPath.get(path) ?? (isEndpointVariant(path) ? variant : bySegment.get(firstSegment(path)));

  // Absolute paths: GraphQL (which may sit outside the prefix), and the path-inserted metadata.
  const byAbsolutePath = new Map([...absolute].map(([path, route]) => [path, chainOf(route)]));

  return function dispatchRoute(ctx: Mounted, next: Next) {
    const path = requestedPath(ctx);
    const absoluteRoute = byAbsolutePath.get(path);
    if (absoluteRoute)
      return path === ctx.path && !ctx.mountPath ? absoluteRoute(ctx, next) : runAt(absoluteRoute, ctx, next, path, '');
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

/**
 * The features' routes by kind of place (lib/core/feature.ts `RouteWhere`), each kind in the features' order.
 * @throws {ConfigError} at `features` when two routes claim one exact path, or one claims an endpoint's path.
 */
function featureRoutes(routes: readonly FeatureRoute[]) {
  const exact = new Map<string, FeatureRoute>();
  const absolute = new Map<string, FeatureRoute>();
  const segments = new Map<string, FeatureRoute[]>();
  const claim = (map: Map<string, FeatureRoute>, path: string, route: FeatureRoute) => {
    const taken =
      map.get(path) ?? (map === exact && PROVIDER_EXACT_PATHS.has(path) ? { name: 'oidc-provider' } : undefined);
    if (taken) throw new ConfigError('features', `route ${route.name} claims ${path}, which ${taken.name} serves`);
    map.set(path, route);
  };
  for (const route of routes) {
    const where = route.where;
    if ('paths' in where) for (const path of where.paths) claim(exact, path, route);
    else if ('absolute' in where) for (const path of where.absolute) claim(absolute, path, route);
    else segments.set(where.segment, [...(segments.get(where.segment) ?? []), route]);
  }
  return { exact, segments, absolute };
}

/** Answer when a host app mounted the middleware under a path that is not the issuer's. */
export function misplacedMountDescription(issuer: string): string {
  return (
    `Portcullis is mounted under a path its issuer (${issuer}) does not name, so the URLs it publishes would ` +
    `not lead here. ` +
    'Mount server.middleware() at the root of the host app (app.use(server.middleware()): it serves under ' +
    "the issuer's path itself), " +
    `or with koa-mount at the issuer's path ${issuerPath(issuer) || '/'}.`
  );
}

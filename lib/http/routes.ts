import type { Context, Middleware, Next } from 'koa';
import compose from 'koa-compose';
import { encodedBody, limitProviderBody, refuseEncodedBody } from './body-limit.js';
import { answeredMethod } from './allowed-methods.js';

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
  CLIENT_AUTH_ENDPOINTS, DISCOVERY_PATHS, ENDPOINT_METHODS, firstSegment, HEALTH_PATHS, isEndpointVariant, issuerPath, PAGE_PREFIXES, PATH_INSERTED_METADATA, PROVIDER_EXACT_PATHS, PROVIDER_ROUTES, PROVIDER_SEGMENTS, RESUME_METHODS,
} from './paths.js';

export {
  CLIENT_AUTH_ENDPOINTS, DISCOVERY_PATHS, HEALTH_PATHS, isEndpointVariant, isReservedPath, issuerPath, PAGE_PREFIXES, PATH_INSERTED_METADATA, PROVIDER_EXACT_PATHS, PROVIDER_ROUTES,
} from './paths.js';

/**
 * Body limits in bytes per kind of route, as their own parsers apply them: oidc-provider's (56 KiB,
 * `lib/shared/selective_body.js`), our forms' (`parseForm`, 16 KiB), GraphQL's (`GRAPHQL_BODY_LIMIT`, 100 KiB).
 * Checked again on a body a host parser read first.
 */
export const BODY_LIMITS = Object.freeze({ provider: 56 * 1024, pages: 16 * 1024, graphql: 100 * 1024 });

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
  bySegment.set(PAGE_PREFIXES.interaction, guarded({ limit: BODY_LIMITS.pages }, parts.interactionPages, ...pageEnd));
  bySegment.set(PAGE_PREFIXES.account, guarded({ limit: BODY_LIMITS.pages }, parts.accountPages, ...pageEnd));
  bySegment.set(PAGE_PREFIXES.ui, guarded({ limit: BODY_LIMITS.pages }, parts.logo, ...pageEnd));
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

/** Portcullis' pre-middleware of one provider endpoint, in the order they run. */
export interface ProviderPreMiddleware {
  /** Answers 503 `temporarily_unavailable` for storage outages raised by the middleware after it. */
  answerStorageOutages: Middleware;
  /** Failed client authentications ({@link CLIENT_AUTH_ENDPOINTS}) and registrations per IP. */
  endpointRateLimits: Middleware;
  /** Single-use initial access tokens: only the reserving registration settles the token. */
  settleInitialAccessToken: Middleware;
  /** `offline_access` without `prompt=consent` (OIDC Core §11). */
  offlineAccessPrompt: Middleware;
  /** Plain `response_type=token`: a description pointing to code + PKCE. */
  explainPlainTokenResponseType: Middleware;
  /** Errors oidc-provider sends without `error_description` get one (authorization and PAR endpoints). */
  describeErrors?: Middleware;
  /** A replayed or raced code or refresh token revokes its grant (RFC 6749 §4.1.2, RFC 9700 §4.14.2). */
  revokeOnCodeReplay: Middleware;
  /** Introspection of a JWT (ID token, JWT access token) answers `{ active: false }`, not a 400 (RFC 7662 §2.2). */
  inactiveStructuredTokens?: Middleware;
  /** OAuth-only mode: no openid-configuration, no OpenID members in RFC 8414 metadata. */
  oauthOnlyDiscovery?: Middleware;
  /** After a sign-in completes (`/authorization/:uid`, oidc-provider's resume route), e.g. recording the device. */
  afterSignIn?: Middleware;
  /**
   * The page security headers, set before oidc-provider answers with one of its own HTML pages (the
   * `response_mode=form_post` and `web_message` pages, the logout auto-submit form): on the authorization endpoint,
   * its resume route and `/session/end`.
   */
  pageHeaders?: Middleware;
  /** On `/session/end/confirm`: the "signed out" page after a full sign-out learns the client that asked. */
  nameClientAfterLogout?: Middleware;
  /**
   * On the endpoints of features Portcullis leaves off ({@link UNSERVED_ENDPOINTS}; userinfo too in OAuth-only mode)
   * and on sub-paths of provider endpoints: oidc-provider may have no route there and would answer Koa's plain-text
   * 404; this answers our JSON 404 instead. It acts only on a 404 without a body, so an endpoint oidc-provider does
   * serve is never changed. Not on the served endpoints' exact paths (userinfo, token, …): no extra step there,
   * but for registration, which may be off; a method such a path does not answer gets 405 ({@link ENDPOINT_METHODS}).
   */
  answerUnservedEndpoint?: Middleware;
}

/** Endpoints of oidc-provider features Portcullis does not turn on (device flow, CIBA, attestation challenge, OpenID4VCI). */
export const UNSERVED_ENDPOINTS = Object.freeze([
  PROVIDER_ROUTES.device_authorization, PROVIDER_ROUTES.code_verification, PROVIDER_ROUTES.backchannel_authentication,
  PROVIDER_ROUTES.challenge, PROVIDER_ROUTES.credential,
]);

/**
 * The provider's pre-middleware table: which of ours run before oidc-provider's router, per endpoint (and
 * `pageHeaders` and `afterSignIn` on the resume route `/authorization/:uid`). Endpoints not listed (userinfo, JWKS, …) run none.
 */
export function providerPreMiddleware(mw: ProviderPreMiddleware): Middleware {
  const table = new Map<string, Middleware[]>([
    ...CLIENT_AUTH_ENDPOINTS.map((path): [string, Middleware[]] => [path, [mw.answerStorageOutages, mw.endpointRateLimits]]),
    [PROVIDER_ROUTES.token, [mw.answerStorageOutages, mw.endpointRateLimits, mw.revokeOnCodeReplay]],
    [PROVIDER_ROUTES.registration, [mw.answerStorageOutages, mw.endpointRateLimits, mw.settleInitialAccessToken]],
    [PROVIDER_ROUTES.authorization, [...(mw.pageHeaders ? [mw.pageHeaders] : []), mw.offlineAccessPrompt, mw.explainPlainTokenResponseType]],
  ]);
  if (mw.describeErrors) for (const path of [PROVIDER_ROUTES.authorization, PROVIDER_ROUTES.pushed_authorization_request]) table.get(path)!.push(mw.describeErrors);
  if (mw.inactiveStructuredTokens) table.get(PROVIDER_ROUTES.introspection)!.push(mw.inactiveStructuredTokens);
  if (mw.pageHeaders) table.set(PROVIDER_ROUTES.end_session, [mw.pageHeaders]);
  table.set(`${PROVIDER_ROUTES.end_session}/confirm`, [mw.pageHeaders, mw.nameClientAfterLogout].filter((m): m is Middleware => m !== undefined));
  if (mw.oauthOnlyDiscovery) for (const path of DISCOVERY_PATHS) table.set(path, [mw.oauthOnlyDiscovery]);
  if (mw.answerUnservedEndpoint) {
    for (const path of [...UNSERVED_ENDPOINTS, ...(mw.oauthOnlyDiscovery ? [PROVIDER_ROUTES.userinfo] : [])]) table.set(path, [mw.answerUnservedEndpoint]);
  }
  // Registration may be off (`registration.enabled`): then oidc-provider has no route there.
  if (mw.answerUnservedEndpoint) table.get(PROVIDER_ROUTES.registration)!.push(mw.answerUnservedEndpoint);
  const composed = new Map([...table].map(([path, chain]) => [path, compose(chain)]));
  const resumePrefix = `${PROVIDER_ROUTES.authorization}/`;
  // oidc-provider's resume route `/authorization/:uid` (one segment, one optional trailing slash); a deeper path has no route.
  const isResume = (path: string) => path.startsWith(resumePrefix) && /^[^/]+\/?$/.test(path.slice(resumePrefix.length));
  const { answerUnservedEndpoint } = mw;
  // Every lane to oidc-provider passes here (standalone, host app, behind a host parser): one 413 for all.
  const limitBody = limitProviderBody(BODY_LIMITS.provider);
  const resumeChain = [mw.pageHeaders, mw.afterSignIn].filter((m): m is Middleware => m !== undefined);
  const onResume = resumeChain.length ? compose(resumeChain) : undefined;
  // Userinfo is unserved in OAuth-only mode: its 404, not a 405, whatever the method.
  const methods = new Map([...ENDPOINT_METHODS].filter(([path]) => !(mw.oauthOnlyDiscovery && path === PROVIDER_ROUTES.userinfo)));
  return function providerPreMiddlewareByPath(ctx: Context, next: Next) {
    const allowed = methods.get(ctx.path) ?? (isResume(ctx.path) ? RESUME_METHODS : undefined);
    if (allowed && answeredMethod(ctx, allowed)) return;
    const hasBody = ctx.req.headers['content-length'] !== undefined || ctx.req.headers['transfer-encoding'] !== undefined;
    if (hasBody && encodedBody(ctx)) return refuseEncodedBody(ctx);
    return hasBody ? limitBody(ctx, () => byPath(ctx, next)) : byPath(ctx, next);
  };
  function byPath(ctx: Context, next: Next) {
    const chain = composed.get(ctx.path);
    if (chain) return chain(ctx, next);
    if (onResume && isResume(ctx.path)) return onResume(ctx, next);
    // A sub-path (`/token/x`, `/.well-known/x`, `/authorization/:uid/x`, RFC 7592's `/registration/:id`): oidc-provider may have no route.
    if (answerUnservedEndpoint && !PROVIDER_EXACT_PATHS.has(ctx.path)) return answerUnservedEndpoint(ctx, next);
    return next();
  }
}

/** Answer when a host app mounted the middleware under a path that is not the issuer's. */
export function misplacedMountDescription(issuer: string): string {
  return `Portcullis is mounted under a path its issuer (${issuer}) does not name, so the URLs it publishes would not lead here. `
    + 'Mount server.middleware() at the root of the host app (app.use(server.middleware()): it serves under the issuer\'s path itself), '
    + `or with koa-mount at the issuer's path ${issuerPath(issuer) || '/'}.`;
}

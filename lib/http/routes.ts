import type { Context, Middleware, Next } from 'koa';
import compose from 'koa-compose';

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
 * | login/consent pages (`/interaction/…`) | requestLog → handleErrors → requireIssuerHost → interaction pages |
 * | account pages (`/account/…`) | requestLog → handleErrors → requireIssuerHost → account pages (their CSRF check inside) |
 * | logo (`/ui/logo`) | requestLog → handleErrors → requireIssuerHost → logo |
 *
 * Every chain after `requestLog` starts with `uiContext` (the request's language and branding, lib/ui/ui.ts).
 * | GraphQL (`graphql.path`, `<path>/csrf-token`) | requestLog → handleErrors → requireIssuerHost → transport guard → bearer auth → document gate → Apollo |
 */

/** Paths of oidc-provider's endpoints (SPEC: Endpoints, area A), as its `routes` configuration. */
export const PROVIDER_ROUTES = Object.freeze({
  authorization: '/authorization',
  token: '/token',
  userinfo: '/userinfo',
  registration: '/registration',
  jwks: '/.well-known/jwks.json',
  end_session: '/session/end',
  revocation: '/token/revocation',
  introspection: '/token/introspection',
  pushed_authorization_request: '/request',
  code_verification: '/device',
  device_authorization: '/device/auth',
  backchannel_authentication: '/backchannel',
  challenge: '/challenge',
  credential: '/credential',
});

/** Discovery documents (OIDC Discovery §4, RFC 8414 §3), served by oidc-provider. */
export const DISCOVERY_PATHS = Object.freeze(['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server']);

/** Paths of the health endpoints. */
export const HEALTH_PATHS = Object.freeze({ live: '/healthz', ready: '/readyz' });

/** Prefixes of the pages Portcullis renders itself. */
export const PAGE_PREFIXES = Object.freeze({ interaction: '/interaction', account: '/account', ui: '/ui' });

function firstSegment(path: string): string {
  const end = path.indexOf('/', 1);
  return end === -1 ? path : path.slice(0, end);
}

/** First path segments the authorization server owns (provider endpoints and their sub-paths, pages). */
const PROVIDER_SEGMENTS = [...new Set([...Object.values(PROVIDER_ROUTES).map(firstSegment), '/.well-known'])];

/** Whether a path is reserved by the authorization server (a GraphQL path there would be shadowed). */
export function isReservedPath(path: string): boolean {
  const segment = firstSegment(path);
  return [...PROVIDER_SEGMENTS, ...Object.values(PAGE_PREFIXES), ...Object.values(HEALTH_PATHS)].includes(segment);
}

/** The named middleware {@link routeTable} places; built by `createServer`. */
export interface RouteParts {
  requestLog: Middleware;
  handleErrors: Middleware;
  requireIssuerHost: Middleware;
  health: Middleware;
  oidcProvider: Middleware;
  interactionPages: Middleware;
  accountPages: Middleware;
  /** The request's language and branding for every page (`uiContext`, lib/ui/ui.ts). */
  uiContext: Middleware;
  /** `/ui/logo`: the configured logo. */
  logo: Middleware;
  /**
   * The GraphQL endpoint's paths (`graphql.path` and its CSRF-token path) and chain (transport guard, bearer
   * auth, gate, Apollo), when `graphql` is configured.
   */
  graphql?: { paths: readonly string[]; chain: Middleware[] };
}

/**
 * Builds the dispatcher of {@link RouteParts}: one `Map` lookup by exact path, else by first path segment.
 * @returns a Koa middleware; unknown paths call `next()` without running any of ours.
 */
export function routeTable(parts: RouteParts): Middleware {
  const guarded = (...handlers: Middleware[]) => compose([parts.requestLog, parts.uiContext, parts.handleErrors, parts.requireIssuerHost, ...handlers]);
  const provider = guarded(parts.oidcProvider);

  const exact = new Map<string, Middleware>();
  for (const path of Object.values(HEALTH_PATHS)) exact.set(path, compose([parts.requestLog, parts.health]));
  if (parts.graphql) {
    const graphql = guarded(...parts.graphql.chain);
    for (const path of parts.graphql.paths) exact.set(path, graphql);
  }
  for (const path of [...Object.values(PROVIDER_ROUTES), ...DISCOVERY_PATHS]) if (!exact.has(path)) exact.set(path, provider);

  // Sub-paths: resume (`/authorization/:uid`), RFC 7592 (`/registration/:id`), logout confirmation, and pages.
  const bySegment = new Map<string, Middleware>();
  for (const segment of PROVIDER_SEGMENTS) bySegment.set(segment, provider);
  bySegment.set(PAGE_PREFIXES.interaction, guarded(parts.interactionPages));
  bySegment.set(PAGE_PREFIXES.account, guarded(parts.accountPages));
  bySegment.set(PAGE_PREFIXES.ui, guarded(parts.logo));

  return function dispatchRoute(ctx: Context, next: Next) {
    const path = ctx.path;
    const route = exact.get(path) ?? bySegment.get(firstSegment(path));
    return route ? route(ctx, next) : next();
  };
}

/** Portcullis' pre-middleware of one provider endpoint, in the order they run. */
export interface ProviderPreMiddleware {
  /** Answers 503 `temporarily_unavailable` for storage outages raised by the middleware after it. */
  answerStorageOutages: Middleware;
  /** Failed client authentications (token, introspection, revocation) and registrations per IP. */
  endpointRateLimits: Middleware;
  /** Single-use initial access tokens: only the reserving registration settles the token. */
  settleInitialAccessToken: Middleware;
  /** `offline_access` without `prompt=consent` (OIDC Core §11). */
  offlineAccessPrompt: Middleware;
  /** Plain `response_type=token`: a description pointing to code + PKCE. */
  explainPlainTokenResponseType: Middleware;
  /** Scope at the code exchange beyond what was approved: `invalid_scope` (SPEC rule 5). */
  refuseScopeBeyondApproval: Middleware;
  /** A replayed or raced code revokes its grant (RFC 6749 §4.1.2). */
  revokeOnCodeReplay: Middleware;
  /** OAuth-only mode: no openid-configuration, no OpenID members in RFC 8414 metadata. */
  oauthOnlyDiscovery?: Middleware;
}

/**
 * The provider's pre-middleware table: which of ours run before oidc-provider's router, per endpoint. Endpoints
 * not listed (userinfo, JWKS, logout, …) run none.
 */
export function providerPreMiddleware(mw: ProviderPreMiddleware): Middleware {
  const table = new Map<string, Middleware[]>([
    [PROVIDER_ROUTES.token, [mw.answerStorageOutages, mw.endpointRateLimits, mw.refuseScopeBeyondApproval, mw.revokeOnCodeReplay]],
    [PROVIDER_ROUTES.introspection, [mw.answerStorageOutages, mw.endpointRateLimits]],
    [PROVIDER_ROUTES.revocation, [mw.answerStorageOutages, mw.endpointRateLimits]],
    [PROVIDER_ROUTES.registration, [mw.answerStorageOutages, mw.endpointRateLimits, mw.settleInitialAccessToken]],
    [PROVIDER_ROUTES.authorization, [mw.offlineAccessPrompt, mw.explainPlainTokenResponseType]],
  ]);
  if (mw.oauthOnlyDiscovery) for (const path of DISCOVERY_PATHS) table.set(path, [mw.oauthOnlyDiscovery]);
  const composed = new Map([...table].map(([path, chain]) => [path, compose(chain)]));
  return function providerPreMiddlewareByPath(ctx: Context, next: Next) {
    const chain = composed.get(ctx.path);
    return chain ? chain(ctx, next) : next();
  };
}

import type { Context, Middleware, Next } from 'koa';
import compose from 'koa-compose';
import { BODY_LIMITS } from './body-limit.js';
import { providerInput, type RefuseInput } from './provider-input.js';
import type { ProviderBefore } from '../core/feature.js';
import {
  CLIENT_AUTH_ENDPOINTS,
  DISCOVERY_PATHS,
  ENDPOINT_METHODS,
  PROVIDER_EXACT_PATHS,
  PROVIDER_ROUTES,
  RESUME_METHODS,
  UNSERVED_ENDPOINTS,
} from './paths.js';

/**
 * The pre-middleware of oidc-provider's endpoints: ours that run inside its app, before its router, per endpoint
 * (the route table, lib/http/routes.ts, places oidc-provider's app itself).
 */

/** Portcullis' pre-middleware of one provider endpoint, in the order they run. */
export interface ProviderPreMiddleware {
  /** Answers 503 `temporarily_unavailable` for storage outages raised by the middleware after it. */
  answerStorageOutages: Middleware;
  /** Failed client authentications ({@link CLIENT_AUTH_ENDPOINTS}) and registrations per IP. */
  endpointRateLimits: Middleware;
  /** `offline_access` without `prompt=consent` (OIDC Core §11). */
  offlineAccessPrompt: Middleware;
  /** Plain `response_type=token`: a description pointing to code + PKCE. */
  explainPlainTokenResponseType: Middleware;
  /** A form POST to the authorization endpoint: `303` to the same request as a GET (lib/oidc/authorization-post.ts). */
  postedAuthorization?: Middleware;
  /** Writes the input checks' refusals (lib/http/provider-input.ts): pages for a browser. Default: JSON. */
  refuseInput?: RefuseInput;
  /** Errors oidc-provider sends without `error_description` get one (authorization and PAR endpoints). */
  describeErrors?: Middleware;
  /** A replayed or raced code or refresh token revokes its grant (RFC 6749 §4.1.2, RFC 9700 §4.14.2). */
  revokeOnCodeReplay: Middleware;
  /** Introspection of a JWT (ID token, JWT access token) answers `{ active: false }`, not a 400 (RFC 7662 §2.2). */
  inactiveStructuredTokens?: Middleware;
  /** OAuth-only mode: no openid-configuration, no OpenID members in RFC 8414 metadata. */
  oauthOnlyDiscovery?: Middleware;
  /**
   * The page security headers, set before oidc-provider answers with one of its own HTML pages (the
   * `response_mode=form_post` and `web_message` pages, the logout auto-submit form): on the authorization endpoint,
   * its resume route and `/session/end`.
   */
  pageHeaders?: Middleware;
  /** On userinfo: an empty or malformed `Authorization` header, or another scheme, gets a description saying so. */
  explainAuthorizationHeader?: Middleware;
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

/**
 * The provider's pre-middleware table: which of ours run before oidc-provider's router, per endpoint (and
 * `pageHeaders` on the resume route `/authorization/:uid`), then the features' (`features`, lib/core/feature.ts:
 * e.g. the single-use initial access tokens on registration, the session's device on resume), in their order.
 * Endpoints no one lists (JWKS, …) run none.
 */
export function providerPreMiddleware(mw: ProviderPreMiddleware, features: readonly ProviderBefore[] = []): Middleware {
  const table = new Map<string, Middleware[]>([
    ...CLIENT_AUTH_ENDPOINTS.map((path): [string, Middleware[]] => [
      path,
      [mw.answerStorageOutages, mw.endpointRateLimits],
    ]),
    [PROVIDER_ROUTES.token, [mw.answerStorageOutages, mw.endpointRateLimits, mw.revokeOnCodeReplay]],
    [PROVIDER_ROUTES.registration, [mw.answerStorageOutages, mw.endpointRateLimits]],
    [
      PROVIDER_ROUTES.authorization,
      [mw.postedAuthorization, mw.pageHeaders, mw.offlineAccessPrompt, mw.explainPlainTokenResponseType].filter(
        (m) => m !== undefined,
      ),
    ],
  ]);
  if (mw.describeErrors)
    for (const path of [PROVIDER_ROUTES.authorization, PROVIDER_ROUTES.pushed_authorization_request])
      table.get(path)!.push(mw.describeErrors);
  if (mw.inactiveStructuredTokens) table.get(PROVIDER_ROUTES.introspection)!.push(mw.inactiveStructuredTokens);
  if (mw.pageHeaders) table.set(PROVIDER_ROUTES.end_session, [mw.pageHeaders]);
  table.set(
    `${PROVIDER_ROUTES.end_session}/confirm`,
    [mw.pageHeaders, mw.nameClientAfterLogout].filter((m): m is Middleware => m !== undefined),
  );
  if (mw.oauthOnlyDiscovery) for (const path of DISCOVERY_PATHS) table.set(path, [mw.oauthOnlyDiscovery]);
  else if (mw.explainAuthorizationHeader) table.set(PROVIDER_ROUTES.userinfo, [mw.explainAuthorizationHeader]);
  if (mw.answerUnservedEndpoint) {
    for (const path of [...UNSERVED_ENDPOINTS, ...(mw.oauthOnlyDiscovery ? [PROVIDER_ROUTES.userinfo] : [])])
      table.set(path, [mw.answerUnservedEndpoint]);
  }
  const resumeChain = [mw.pageHeaders].filter((m): m is Middleware => m !== undefined);
  for (const { endpoints, middleware } of features) {
    for (const endpoint of endpoints) {
      if (endpoint === 'resume') resumeChain.push(middleware);
      else table.set(PROVIDER_ROUTES[endpoint], [...(table.get(PROVIDER_ROUTES[endpoint]) ?? []), middleware]);
    }
  }
  // Registration may be off (`registration.enabled`): then oidc-provider has no route there.
  if (mw.answerUnservedEndpoint) table.get(PROVIDER_ROUTES.registration)!.push(mw.answerUnservedEndpoint);
  const composed = new Map([...table].map(([path, chain]) => [path, compose(chain)]));
  const resumePrefix = `${PROVIDER_ROUTES.authorization}/`;
  // oidc-provider's resume route `/authorization/:uid` (one segment, one optional trailing slash); a deeper path has no
  // route.
  const isResume = (path: string) =>
    path.startsWith(resumePrefix) && /^[^/]+\/?$/.test(path.slice(resumePrefix.length));
  const { answerUnservedEndpoint } = mw;
  const onResume = resumeChain.length ? compose(resumeChain) : undefined;
  // Userinfo is unserved in OAuth-only mode: its 404, not a 405, whatever the method.
  const methods = new Map(
    [...ENDPOINT_METHODS].filter(([path]) => !(mw.oauthOnlyDiscovery && path === PROVIDER_ROUTES.userinfo)),
  );
  // Every lane to oidc-provider passes here (standalone, host app, behind a host parser): one set of input checks.
  const methodsOf = (ctx: Context) => methods.get(ctx.path) ?? (isResume(ctx.path) ? RESUME_METHODS : undefined);
  const checkInput = providerInput(methodsOf, BODY_LIMITS.provider, mw.refuseInput);
  return function providerPreMiddlewareByPath(ctx: Context, next: Next) {
    return checkInput(ctx, () => byPath(ctx, next));
  };
  function byPath(ctx: Context, next: Next) {
    const chain = composed.get(ctx.path);
    if (chain) return chain(ctx, next);
    if (onResume && isResume(ctx.path)) return onResume(ctx, next);
    // A sub-path (`/token/x`, `/.well-known/x`, `/authorization/:uid/x`, RFC 7592's `/registration/:id`): oidc-provider
    // may have no route.
    if (answerUnservedEndpoint && !PROVIDER_EXACT_PATHS.has(ctx.path)) return answerUnservedEndpoint(ctx, next);
    return next();
  }
}

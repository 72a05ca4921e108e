/**
 * The paths of the authorization server: oidc-provider's endpoints, discovery, health and our pages, and the
 * checks on a path that the route table (lib/http/routes.ts) makes with them.
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

/**
 * Endpoints of oidc-provider features Portcullis does not turn on (device flow, CIBA, attestation challenge,
 * OpenID4VCI).
 */
export const UNSERVED_ENDPOINTS = Object.freeze([
  PROVIDER_ROUTES.device_authorization,
  PROVIDER_ROUTES.code_verification,
  PROVIDER_ROUTES.backchannel_authentication,
  PROVIDER_ROUTES.challenge,
  PROVIDER_ROUTES.credential,
]);

/**
 * The endpoints where oidc-provider authenticates the client (RFC 6749 §2.3, §5.2 `invalid_client`): token,
 * introspection (RFC 7662), revocation (RFC 7009) and pushed authorization requests (RFC 9126 §2.1). Failed
 * authentications at any of them count against one per-IP budget (`rateLimits.clientAuthFailures`).
 */
export const CLIENT_AUTH_ENDPOINTS = Object.freeze([
  PROVIDER_ROUTES.token,
  PROVIDER_ROUTES.introspection,
  PROVIDER_ROUTES.revocation,
  PROVIDER_ROUTES.pushed_authorization_request,
]);

/** Discovery documents (OIDC Discovery §4, RFC 8414 §3), served by oidc-provider. */
export const DISCOVERY_PATHS = Object.freeze([
  '/.well-known/openid-configuration',
  '/.well-known/oauth-authorization-server',
]);

/** Paths of the health endpoints. */
export const HEALTH_PATHS = Object.freeze({ live: '/healthz', ready: '/readyz' });

/** The paths oidc-provider answers by exact match: its endpoints and the discovery documents (health excluded). */
export const PROVIDER_EXACT_PATHS: ReadonlySet<string> = new Set(
  [...Object.values(PROVIDER_ROUTES), ...DISCOVERY_PATHS].filter(
    (p) => !(Object.values(HEALTH_PATHS) as string[]).includes(p),
  ),
);

/**
 * The methods each served endpoint answers at its exact path, as oidc-provider registers its routes
 * (`lib/helpers/initialize_app.js`; a GET route also answers HEAD, and the CORS-enabled endpoints answer the
 * `OPTIONS` preflight). oidc-provider's POST forms of the authorization and logout endpoints (`enableHttpPostMethods`)
 * stay off (the session cookies are `SameSite=Lax`, so a cross-site POST carries none): a form POST to the
 * authorization endpoint (OIDC Core §3.1.2.1) is answered by Portcullis with a `303` to the same request as a GET
 * (lib/oidc/authorization-post.ts). Another method gets `405 invalid_request` with `Allow` (RFC 9110 §15.5.6)
 * instead of Koa's plain-text 404.
 */
export const ENDPOINT_METHODS: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  [
    [PROVIDER_ROUTES.authorization, ['GET', 'HEAD', 'POST']],
    [PROVIDER_ROUTES.token, ['POST', 'OPTIONS']],
    [PROVIDER_ROUTES.userinfo, ['GET', 'HEAD', 'POST', 'OPTIONS']],
    [PROVIDER_ROUTES.registration, ['POST']],
    [PROVIDER_ROUTES.jwks, ['GET', 'HEAD', 'OPTIONS']],
    [PROVIDER_ROUTES.end_session, ['GET', 'HEAD']],
    [`${PROVIDER_ROUTES.end_session}/confirm`, ['POST']],
    [`${PROVIDER_ROUTES.end_session}/success`, ['GET', 'HEAD']],
    [PROVIDER_ROUTES.revocation, ['POST', 'OPTIONS']],
    [PROVIDER_ROUTES.introspection, ['POST', 'OPTIONS']],
    [PROVIDER_ROUTES.pushed_authorization_request, ['POST', 'OPTIONS']],
    ...DISCOVERY_PATHS.map((path): [string, string[]] => [path, ['GET', 'HEAD', 'OPTIONS']]),
  ].map(([path, methods]) => [path as string, new Set(methods as string[])]),
);

/**
 * The methods of the authorization endpoint's resume path (`/authorization/<uid>`, after the login and consent pages).
 */
export const RESUME_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD']);

/**
 * oidc-provider's router matches a path case-insensitively and with one trailing slash (its `lib/helpers/router.js`):
 * `/token/`, `/Token/Revocation` or `/.well-known/OPENID-configuration` would reach its endpoint without the
 * pre-middleware and rules Portcullis keys on the exact path (client-authentication limits, single-use initial
 * access tokens, OAuth-only discovery, …). Those variants are refused instead (routeTable, lib/http/routes.ts).
 * Upper-casing the whole path over-approximates its fold (it never misses a variant it would match).
 */
const FOLDED_EXACT_PATHS: ReadonlySet<string> = new Set([...PROVIDER_EXACT_PATHS].map((p) => p.toUpperCase()));

/** Whether `path` is not an endpoint's exact path but would reach that endpoint in oidc-provider's router. */
export function isEndpointVariant(path: string): boolean {
  if (PROVIDER_EXACT_PATHS.has(path)) return false;
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return FOLDED_EXACT_PATHS.has(trimmed.toUpperCase());
}

/** Prefixes of the pages Portcullis renders itself. */
export const PAGE_PREFIXES = Object.freeze({ interaction: '/interaction', account: '/account', ui: '/ui' });

/** The first segment of a path: `/token` for `/token/revocation`. */
export function firstSegment(path: string): string {
  const end = path.indexOf('/', 1);
  return end === -1 ? path : path.slice(0, end);
}

/** First path segments the authorization server owns (provider endpoints and their sub-paths, pages). */
export const PROVIDER_SEGMENTS = [...new Set([...Object.values(PROVIDER_ROUTES).map(firstSegment), '/.well-known'])];

/** Whether a path (relative to the issuer's path) is reserved by the authorization server. */
export function isReservedPath(path: string): boolean {
  const segment = firstSegment(path);
  return [...PROVIDER_SEGMENTS, ...Object.values(PAGE_PREFIXES), ...Object.values(HEALTH_PATHS)].includes(segment);
}

/**
 * The path of an issuer URL without its trailing slash: `''` for `https://host`, `/auth` for `https://host/auth`.
 * Every authorization server route is served under it (OIDC Discovery §4, RFC 8414 §3).
 */
export function issuerPath(issuer: string): string {
  const { pathname } = new URL(issuer);
  return pathname === '/' ? '' : pathname.replace(/\/$/, '');
}

/** RFC 8414 §3.1: the metadata URL of an issuer with a path has the well-known segment inserted before the path. */
export const PATH_INSERTED_METADATA = '/.well-known/oauth-authorization-server';

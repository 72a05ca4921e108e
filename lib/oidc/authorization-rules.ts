import { createHash } from 'node:crypto';
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import { writeError } from '../http/error-handler.js';

/**
 * Rules of the authorization server that oidc-provider does not enforce itself, each as a small piece that
 * hooks a documented place: `provider.use()` pre-middleware (runs before oidc-provider's router) or an
 * `extraParams` validator (runs inside the authorization endpoint, after request objects and PAR are resolved,
 * so it sees exactly the parameters oidc-provider acts on). The rules of the token endpoint's code and refresh
 * grants, which hook the storage adapter's read and consumption of the code, are in token-grant-rules.ts.
 */

type Next = () => Promise<unknown>;

/** Description given for a bare `response_type=token` (RFC 9700 §2.1.2). */
export const PLAIN_TOKEN_DESCRIPTION =
  'response_type token (implicit grant returning an access token in the URL) is not supported: use ' +
  'response_type code with PKCE (RFC 9700 section 2.1.2)';
const DEFAULT_UNSUPPORTED_DESCRIPTION = 'unsupported response_type requested';

function isPlainTokenRequest(ctx: KoaContextWithOIDC): boolean {
  const responseType =
    (ctx.oidc?.params?.response_type as string | undefined) ??
    (typeof ctx.query.response_type === 'string' ? ctx.query.response_type : undefined);
  return typeof responseType === 'string' && [...new Set(responseType.split(' '))].sort().join(' ') === 'token';
}

/** The CSP source (`'sha256-…'`, CSP3 §2.3.1) of the first inline script of `html`. */
export function scriptHashSource(html: string): string {
  const script = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
  return `'sha256-${createHash('sha256').update(script).digest('base64')}'`;
}

/** Replaces `error_description` in the parameters of a redirect (query or fragment response mode). */
function rewriteLocation(location: string, description: string): string {
  const url = new URL(location);
  for (const part of ['search', 'hash'] as const) {
    const params = new URLSearchParams(url[part].slice(1));
    if (params.get('error') === 'unsupported_response_type') {
      params.set('error_description', description);
      url[part] = params.toString();
    }
  }
  return url.href;
}

/**
 * Bare `response_type=token` is refused by oidc-provider with `unsupported_response_type` (it cannot be
 * enabled); this adds a description that points to the code flow with PKCE. oidc-provider has already decided
 * where the error goes: to the redirect_uri only when the client and the redirect_uri are valid, else to
 * {@link renderError} (which uses {@link PLAIN_TOKEN_DESCRIPTION} itself). Query, fragment, form_post and
 * web_message answers are rewritten here (for web_message, with the hash of its inline script in the CSP).
 */
export function explainPlainTokenResponseType(authorizationPath: string) {
  return async function plainTokenResponseType(ctx: KoaContextWithOIDC, next: Next) {
    await next();
    if (ctx.path !== authorizationPath || !isPlainTokenRequest(ctx)) return;
    const location = ctx.response.get('location');
    if (location && location.includes('unsupported_response_type')) {
      ctx.response.set('location', rewriteLocation(location, PLAIN_TOKEN_DESCRIPTION));
    } else if (typeof ctx.body === 'string' && ctx.body.includes('name="error" value="unsupported_response_type"')) {
      ctx.body = ctx.body.replace(
        `name="error_description" value="${DEFAULT_UNSUPPORTED_DESCRIPTION}"`,
        `name="error_description" value="${PLAIN_TOKEN_DESCRIPTION}"`,
      );
    } else if (typeof ctx.body === 'string' && ctx.body.includes('"error":"unsupported_response_type"')) {
      const before = ctx.body;
      const after = before.replace(
        `"error_description":"${DEFAULT_UNSUPPORTED_DESCRIPTION}"`,
        `"error_description":${JSON.stringify(PLAIN_TOKEN_DESCRIPTION)}`,
      );
      ctx.body = after;
      // The web_message page's one inline script runs by its SHA-256 in the CSP (oidc-provider added it): allow the
      // rewritten script instead of the one it replaced.
      const csp = ctx.response.get('content-security-policy');
      if (csp) ctx.set('content-security-policy', csp.replace(scriptHashSource(before), scriptHashSource(after)));
    }
  };
}

/** Whether `out` (the error about to be rendered) is the refusal of a bare `response_type=token`. */
export function isPlainTokenRefusal(ctx: KoaContextWithOIDC, error: unknown): boolean {
  return error === 'unsupported_response_type' && isPlainTokenRequest(ctx);
}

/**
 * OAuth-only mode, authorization endpoint and PAR: `scope=openid` fails with `invalid_scope` (oidc-provider
 * cannot remove `openid` from its scopes). Used as an `extraParams` validator, so it runs after request objects
 * and pushed requests are resolved and its error goes only to a validated redirect_uri.
 */
export async function refuseOpenidScope(ctx: KoaContextWithOIDC): Promise<void> {
  if (ctx.oidc.requestParamScopes.has('openid')) {
    throw new errors.InvalidScope(
      'OpenID Connect is disabled on this server: the openid scope is not available',
      'openid',
    );
  }
}

/** Discovery members that only describe OpenID Connect; removed in OAuth-only mode. */
const OIDC_ONLY_METADATA = [
  'userinfo_endpoint',
  'claims_supported',
  'claims_parameter_supported',
  'claim_types_supported',
  'subject_types_supported',
  'id_token_signing_alg_values_supported',
  'id_token_encryption_alg_values_supported',
  'id_token_encryption_enc_values_supported',
  'userinfo_signing_alg_values_supported',
  'acr_values_supported',
  'end_session_endpoint',
  'frontchannel_logout_supported',
  'frontchannel_logout_session_supported',
  'backchannel_logout_supported',
  'backchannel_logout_session_supported',
];

/**
 * OAuth-only mode, discovery: `/.well-known/openid-configuration` is not served (404) and the RFC 8414
 * document drops OpenID Connect members and the `openid` scope.
 */
export function oauthOnlyDiscovery() {
  return async function oauthOnlyMetadata(ctx: KoaContextWithOIDC, next: Next) {
    if (ctx.path === '/.well-known/openid-configuration') {
      // 404 `invalid_request`: the OAuth error registry has no "not found".
      writeError(
        ctx as never,
        404,
        'invalid_request',
        'OpenID Connect is disabled on this server; see /.well-known/oauth-authorization-server',
        { page: false },
      );
      return;
    }
    await next();
    if (
      ctx.path === '/.well-known/oauth-authorization-server' &&
      ctx.status === 200 &&
      ctx.body &&
      typeof ctx.body === 'object'
    ) {
      const body = ctx.body as Record<string, unknown>;
      for (const member of OIDC_ONLY_METADATA) delete body[member];
      if (Array.isArray(body.scopes_supported))
        body.scopes_supported = body.scopes_supported.filter((s) => s !== 'openid');
    }
  };
}

/**
 * RFC 7662 §2.2: a token the caller may not introspect, or one this server does not know, is answered
 * `{ "active": false }` ("MUST"). oidc-provider instead answers any token with a JWT header (ID tokens, the GraphQL
 * API's JWT access tokens, anything shaped like one) `400 unsupported_token_type`, an error RFC 7662 does not
 * define (it is RFC 7009's, for revocation). A relying party then cannot tell such a token from an outage:
 * `verifyAccessTokenForUser` failed with `ERR_INTROSPECTION_FAILED` (the example answers 503) when a browser posted
 * an ID token instead of an access token. Only reached after client authentication succeeded (oidc-provider
 * authenticates the client first), so the answer reveals nothing to anyone else.
 */
export async function inactiveStructuredTokens(ctx: KoaContextWithOIDC, next: Next): Promise<void> {
  await next();
  if (ctx.status !== 400 || (ctx.body as { error?: unknown } | undefined)?.error !== 'unsupported_token_type') return;
  ctx.status = 200;
  ctx.body = { active: false };
}

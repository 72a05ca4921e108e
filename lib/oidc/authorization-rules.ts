import { createHash } from 'node:crypto';
import Provider, { errors, type KoaContextWithOIDC } from 'oidc-provider';
import { requestSlot } from '../core/request-slot.js';
import { overriding, watchReads, type AdapterFactory } from '../core/storage.js';
import { writeError } from '../http/error-handler.js';
import { refuseResourceNotHeld } from './exchange-resource.js';

/**
 * Rules of the authorization server that oidc-provider does not enforce itself, each as a small piece that
 * hooks a documented place: `provider.use()` pre-middleware (runs before oidc-provider's router), an
 * `extraParams` validator (runs inside the authorization endpoint, after request objects and PAR are resolved,
 * so it sees exactly the parameters oidc-provider acts on), or the storage adapter's read and consumption of the
 * code being exchanged (inside the token endpoint, after client authentication, body parsing and its own checks).
 */

type Next = () => Promise<unknown>;

/** Description given for a bare `response_type=token` (RFC 9700 §2.1.2). */
export const PLAIN_TOKEN_DESCRIPTION =
  'response_type token (implicit grant returning an access token in the URL) is not supported: use response_type code with PKCE (RFC 9700 section 2.1.2)';
const DEFAULT_UNSUPPORTED_DESCRIPTION = 'unsupported response_type requested';

function isPlainTokenRequest(ctx: KoaContextWithOIDC): boolean {
  const responseType = (ctx.oidc?.params?.response_type as string | undefined) ?? (typeof ctx.query.response_type === 'string' ? ctx.query.response_type : undefined);
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

/** What the code-exchange scope rule reads of the request oidc-provider is answering (`Provider.ctx`). */
interface ProviderRequestContext {
  req: object;
  oidc?: {
    route?: string;
    params?: { grant_type?: unknown; code?: unknown; refresh_token?: unknown; resource?: unknown };
    body?: Record<string, unknown>;
  };
}

/**
 * The approved scope of the code being exchanged in this request, kept from oidc-provider's read of it until its
 * consume (both only for the request's own `code`, see {@link exchangeOf}).
 */
const exchangedCode = requestSlot<{ scope: unknown; resource: unknown; consuming?: true }>('portcullis.exchangedCode');

/** The current request context when it is an authorization code exchange of the code `id`. */
function exchangeOf(id: string): ProviderRequestContext | undefined {
  const ctx = Provider.ctx as ProviderRequestContext | undefined;
  const oidc = ctx?.oidc;
  return oidc?.route === 'token' && oidc.params?.grant_type === 'authorization_code' && oidc.params.code === id ? ctx : undefined;
}

/** Marks a refresh-token request that reached the consume of its own refresh token (every check passed). */
const consumingRefreshToken = requestSlot<true>('portcullis.consumingRefreshToken');

/** The `resource` of the refresh token being used in this request, kept from oidc-provider's read until its consume. */
const refreshedResource = requestSlot<{ resource: unknown }>('portcullis.refreshedResource');

/** The current request context when it is a refresh of the refresh token `id` (RFC 6749 §6). */
function refreshOf(id: string): ProviderRequestContext | undefined {
  const ctx = Provider.ctx as ProviderRequestContext | undefined;
  const oidc = ctx?.oidc;
  return oidc?.route === 'token' && oidc.params?.grant_type === 'refresh_token' && oidc.params.refresh_token === id ? ctx : undefined;
}

/**
 * RFC 6749 §5.2 / SPEC rule 5: a `scope` parameter at the authorization code exchange that goes beyond what the
 * user approved for that code fails with `invalid_scope` before the code is consumed or any token issued.
 * (oidc-provider ignores `scope` on this grant.) A subset is accepted and, as before, ignored: the token carries
 * the approved scope, which the token response states. A `scope` given twice fails with `invalid_request`.
 *
 * Runs when oidc-provider consumes the code: by then it has authenticated the client (wrong credentials:
 * `invalid_client`), parsed the body (`ctx.oidc.body`, every field), and refused with `invalid_grant` a code of
 * another client, an expired one, a wrong PKCE `code_verifier` or redirect_uri, and a code already consumed
 * (revoking its grant, RFC 6749 §4.1.2). So only a caller who could redeem the code learns anything about its
 * approval, and a scope refusal never pre-empts the revocation of a replayed code.
 *
 * @throws oidc-provider's `InvalidScope` or `InvalidRequest`, which it answers as 400 JSON.
 */
function refuseScopeBeyondApproval(ctx: ProviderRequestContext, approvedScope: unknown): void {
  const requested = ctx.oidc?.body?.scope;
  if (requested === undefined) return;
  // oidc-provider checks duplicates only among the grant's own parameters, and scope is not one of them.
  if (typeof requested !== 'string') throw new errors.InvalidRequest("'scope' parameter must only be provided once (RFC 6749 §3.1)");
  const approved = new Set(String(approvedScope ?? '').split(' ').filter(Boolean));
  const beyond = [...new Set(requested.split(' ').filter((s) => s && !approved.has(s)))];
  if (beyond.length > 0) {
    // No `scope` member in the answer (oidc-provider adds one when given): the body stays RFC 6749 §5.2's, as before.
    throw new errors.InvalidScope(`requested scope goes beyond the scope approved for this authorization code: ${beyond.join(' ')}`, undefined as unknown as string);
  }
}

/**
 * The adapter factory with {@link refuseScopeBeyondApproval} applied at the code exchange: the approved scope is
 * kept when oidc-provider reads the code (`find`) and checked when it consumes it (`consume`), in the same request
 * (`Provider.ctx`). oidc-provider offers no token-endpoint hook after its body parsing; the rule used to read the
 * body in a pre-middleware, which meant reading the stream and replaying it to oidc-provider on every exchange
 * (measured: 5–9 % of `/token` throughput on memory storage).
 */
export function codeExchangeScopeAdapter(factory: AdapterFactory): AdapterFactory {
  return (model) => {
    const adapter = factory(model);
    if (model === 'RefreshToken') {
      const reads = watchReads(adapter, (token, id) => {
        const ctx = token && refreshOf(id);
        if (ctx) refreshedResource.set(ctx.req, { resource: token.resource });
      });
      return overriding(reads, {
        async consume(id) {
          // oidc-provider rotates a refresh token after its checks of the refresh, but before the resource check.
          const ctx = refreshOf(id);
          if (ctx) {
            refuseResourceNotHeld(ctx.oidc?.params?.resource, refreshedResource.get(ctx.req)?.resource);
            consumingRefreshToken.set(ctx.req, true);
          }
          return adapter.consume(id);
        },
      });
    }
    if (model !== 'AuthorizationCode') return adapter;
    const reads = watchReads(adapter, (code, id) => {
      const ctx = code && exchangeOf(id);
      if (ctx) exchangedCode.set(ctx.req, { scope: code.scope, resource: code.resource });
    });
    return overriding(reads, {
      async consume(id) {
        const ctx = exchangeOf(id);
        const read = ctx && exchangedCode.get(ctx.req);
        if (read) {
          refuseScopeBeyondApproval(ctx!, read.scope);
          refuseResourceNotHeld(ctx!.oidc?.params?.resource, read.resource);
          // oidc-provider consumes only after every check of the exchange passed (see revokeOnCodeReplay).
          read.consuming = true;
        }
        return adapter.consume(id);
      },
    });
  };
}

/**
 * OAuth-only mode, authorization endpoint and PAR: `scope=openid` fails with `invalid_scope` (oidc-provider
 * cannot remove `openid` from its scopes). Used as an `extraParams` validator, so it runs after request objects
 * and pushed requests are resolved and its error goes only to a validated redirect_uri.
 */
export async function refuseOpenidScope(ctx: KoaContextWithOIDC): Promise<void> {
  if (ctx.oidc.requestParamScopes.has('openid')) {
    throw new errors.InvalidScope('OpenID Connect is disabled on this server: the openid scope is not available', 'openid');
  }
}

/** Discovery members that only describe OpenID Connect; removed in OAuth-only mode. */
const OIDC_ONLY_METADATA = [
  'userinfo_endpoint', 'claims_supported', 'claims_parameter_supported', 'claim_types_supported',
  'subject_types_supported', 'id_token_signing_alg_values_supported', 'id_token_encryption_alg_values_supported',
  'id_token_encryption_enc_values_supported', 'userinfo_signing_alg_values_supported', 'acr_values_supported',
  'end_session_endpoint', 'frontchannel_logout_supported', 'frontchannel_logout_session_supported',
  'backchannel_logout_supported', 'backchannel_logout_session_supported',
];

/**
 * OAuth-only mode, discovery: `/.well-known/openid-configuration` is not served (404) and the RFC 8414
 * document drops OpenID Connect members and the `openid` scope.
 */
export function oauthOnlyDiscovery() {
  return async function oauthOnlyMetadata(ctx: KoaContextWithOIDC, next: Next) {
    if (ctx.path === '/.well-known/openid-configuration') {
      // 404 `invalid_request`: the OAuth error registry has no "not found".
      writeError(ctx as never, 404, 'invalid_request', 'OpenID Connect is disabled on this server; see /.well-known/oauth-authorization-server', { page: false });
      return;
    }
    await next();
    if (ctx.path === '/.well-known/oauth-authorization-server' && ctx.status === 200 && ctx.body && typeof ctx.body === 'object') {
      const body = ctx.body as Record<string, unknown>;
      for (const member of OIDC_ONLY_METADATA) delete body[member];
      if (Array.isArray(body.scopes_supported)) body.scopes_supported = body.scopes_supported.filter((s) => s !== 'openid');
    }
  };
}

/**
 * RFC 6749 §4.1.2 / RFC 9700 §4.5: a code presented again is refused and everything issued from it revoked.
 * oidc-provider revokes when it reads a code already marked consumed, once the exchange has passed its checks (the
 * code's own client, PKCE `code_verifier`, redirect_uri); when two exchanges race, the loser is stopped by the
 * storage's atomic `consume` instead, and nothing is revoked. This closes that gap: after an `invalid_grant` from
 * the atomic `consume` of the request's code, the code's grant (its tokens, codes and the Grant record) is
 * revoked, so even the racing winner's tokens stop working (their Grant no longer exists).
 *
 * The same for refresh tokens (RFC 9700 §4.14.2: a rotated refresh token presented again revokes its grant):
 * oidc-provider revokes when it reads one already consumed; the loser of two concurrent refreshes is stopped by
 * the atomic `consume` and revokes here.
 *
 * Only a request that reached `consume` (every check passed: it could have redeemed the code) revokes, as in
 * oidc-provider. Another client, a wrong `code_verifier` or redirect_uri presenting a used code get `invalid_grant`
 * and revoke nothing: otherwise anyone who saw a used code (in a log, a browser history, a Referer) could revoke
 * its owner's tokens with any client_id.
 */
export function revokeOnCodeReplay(provider: Provider, tokenPath: string) {
  return async function grantSourceReplay(ctx: KoaContextWithOIDC, next: Next) {
    await next();
    if (ctx.method !== 'POST' || ctx.path !== tokenPath || ctx.status !== 400) return;
    if ((ctx.body as { error?: string } | undefined)?.error !== 'invalid_grant') return;
    const params = ctx.oidc?.params as { grant_type?: string; code?: string; refresh_token?: string } | undefined;
    let source: { consumed?: number; grantId?: string; clientId?: string } | undefined;
    if (params?.grant_type === 'authorization_code' && typeof params.code === 'string' && exchangedCode.get(ctx.req)?.consuming) {
      source = await provider.AuthorizationCode.find(params.code, { ignoreExpiration: true }) as typeof source;
    } else if (params?.grant_type === 'refresh_token' && typeof params.refresh_token === 'string' && consumingRefreshToken.get(ctx.req)) {
      source = await provider.RefreshToken.find(params.refresh_token, { ignoreExpiration: true }) as typeof source;
    }
    if (!source?.consumed || !source.grantId) return;
    if (source.clientId !== ctx.oidc.client?.clientId) return;
    const { grantId } = source;
    await Promise.all([
      provider.AccessToken.revokeByGrantId(grantId),
      provider.RefreshToken.revokeByGrantId(grantId),
      provider.AuthorizationCode.revokeByGrantId(grantId),
      provider.Grant.adapter.destroy(grantId),
    ]);
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

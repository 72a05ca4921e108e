import { stringify } from 'node:querystring';
import type Provider from 'oidc-provider';
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import type { OAuthErrorCode } from '../core/errors.js';
import { writeError } from '../http/error-handler.js';

/**
 * Rules of the authorization server that oidc-provider does not enforce itself, each as a small piece that
 * hooks a documented place: `provider.use()` pre-middleware (runs before oidc-provider's router) or an
 * `extraParams` validator (runs inside the authorization endpoint, after request objects and PAR are resolved,
 * so it sees exactly the parameters oidc-provider acts on).
 */

type ProviderContext = KoaContextWithOIDC & { req: KoaContextWithOIDC['req'] & { body?: unknown } };
type Next = () => Promise<unknown>;

/** Description given for a bare `response_type=token` (RFC 9700 §2.1.2). */
export const PLAIN_TOKEN_DESCRIPTION =
  'response_type token (implicit grant returning an access token in the URL) is not supported: use response_type code with PKCE (RFC 9700 section 2.1.2)';
const DEFAULT_UNSUPPORTED_DESCRIPTION = 'unsupported response_type requested';

function isPlainTokenRequest(ctx: ProviderContext): boolean {
  const responseType = (ctx.oidc?.params?.response_type as string | undefined) ?? (typeof ctx.query.response_type === 'string' ? ctx.query.response_type : undefined);
  return typeof responseType === 'string' && [...new Set(responseType.split(' '))].sort().join(' ') === 'token';
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
 * web_message answers are rewritten here (a web_message page under a hash-based CSP keeps the generic
 * description: changing its inline script would break the hash).
 */
export function explainPlainTokenResponseType(authorizationPath: string) {
  return async function plainTokenResponseType(ctx: ProviderContext, next: Next) {
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
    } else if (typeof ctx.body === 'string' && ctx.body.includes('"error":"unsupported_response_type"') && !ctx.response.get('content-security-policy')) {
      ctx.body = ctx.body.replace(
        `"error_description":"${DEFAULT_UNSUPPORTED_DESCRIPTION}"`,
        `"error_description":${JSON.stringify(PLAIN_TOKEN_DESCRIPTION)}`,
      );
    }
  };
}

/** Whether `out` (the error about to be rendered) is the refusal of a bare `response_type=token`. */
export function isPlainTokenRefusal(ctx: KoaContextWithOIDC, error: unknown): boolean {
  return error === 'unsupported_response_type' && isPlainTokenRequest(ctx as ProviderContext);
}

const FORM_LIMIT = 56 * 1024; // oidc-provider's own body limit

async function readRawBody(ctx: ProviderContext): Promise<Buffer | undefined> {
  if (!ctx.req.readable) {
    // A host app's body parser read the stream (lib/http/host-body.ts handed on what it kept as `req.body`):
    // the same bytes, or the parsed form serialised the way oidc-provider's own fallback does.
    const kept = ctx.req.body;
    const raw = Buffer.isBuffer(kept) ? kept : Buffer.from(typeof kept === 'string' ? kept : stringify((kept ?? {}) as never));
    return raw.length > FORM_LIMIT ? undefined : raw;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > FORM_LIMIT) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size);
}

/**
 * Makes the already-read request stream readable again with the same bytes, the way oidc-provider's body
 * reader consumes it (`req.readable`, `req.iterator()`), so oidc-provider parses the body itself exactly as if
 * nobody had read it. `req.body` is set too: it is the fallback oidc-provider uses for a consumed stream.
 */
function replayBody(ctx: ProviderContext, raw: Buffer): void {
  const req = ctx.req;
  req.body = raw;
  Object.defineProperty(req, 'readable', { value: true, configurable: true });
  Object.defineProperty(req, 'iterator', {
    configurable: true,
    value: async function* replay() {
      Object.defineProperty(req, 'readable', { value: false, configurable: true });
      if (raw.length) yield raw;
    },
  });
}

function basicCredentials(ctx: ProviderContext): [string, string] | undefined {
  const basic = /^Basic (.+)$/i.exec(ctx.get('authorization'));
  if (!basic) return undefined;
  const decoded = Buffer.from(basic[1]!, 'base64').toString();
  const i = decoded.indexOf(':');
  if (i < 0) return undefined;
  try {
    const decode = (v: string) => decodeURIComponent(v.replace(/\+/g, ' '));
    return [decode(decoded.slice(0, i)), decode(decoded.slice(i + 1))];
  } catch {
    return undefined;
  }
}

/**
 * Whether the request authenticates `client` as oidc-provider would for the secret-based methods (RFC 6749
 * §2.3.1), so that a refusal about scope is never given to a caller with wrong credentials (they get
 * oidc-provider's `invalid_client` instead). Methods this middleware cannot check (JWT assertions) count as
 * authenticated: the answer is then a refusal either way.
 */
async function presentsValidCredentials(ctx: ProviderContext, form: URLSearchParams, client: InstanceType<Provider['Client']>): Promise<boolean> {
  const basic = basicCredentials(ctx);
  switch (client.clientAuthMethod) {
    case 'none':
      return !basic && !form.has('client_secret');
    // oidc-provider accepts either secret transport for both methods; so does this check.
    case 'client_secret_post':
    case 'client_secret_basic': {
      const secret = basic ? basic[1] : form.getAll('client_secret').length === 1 ? form.get('client_secret') : null;
      return secret !== null && (!basic || !form.has('client_secret')) && await client.compareClientSecret(secret);
    }
    default:
      return true;
  }
}

/** Whether a form body may have a `scope` field: a field named so, or a percent-encoded name (which might decode to it). */
function namesScope(raw: Buffer): boolean {
  for (const field of raw.toString('latin1').split('&')) {
    const eq = field.indexOf('=');
    const name = eq < 0 ? field : field.slice(0, eq);
    if (name === 'scope' || name.includes('%')) return true;
  }
  return false;
}

/**
 * RFC 6749 §5.2 / SPEC rule 5: a `scope` parameter at the authorization code exchange that goes beyond what
 * the user approved for that code fails with `invalid_scope` before the code is consumed or any token issued.
 * (oidc-provider ignores `scope` on this grant.) A subset is accepted and, as before, ignored: the token carries
 * the approved scope, which the token response states. Only a caller presenting the client's valid credentials
 * gets this answer; others go on to oidc-provider's client authentication.
 *
 * oidc-provider reads the request body from the stream itself (and no body parser may sit in front of it);
 * this middleware reads the stream first and hands the same bytes back with {@link replayBody}.
 */
export function refuseScopeBeyondApprovalAtCodeExchange(provider: Provider, tokenPath: string) {
  return async function codeExchangeScope(ctx: ProviderContext, next: Next) {
    if (ctx.method !== 'POST' || ctx.path !== tokenPath || !ctx.is('application/x-www-form-urlencoded')) return next();
    const raw = await readRawBody(ctx);
    if (!raw) {
      writeError(ctx as never, 413, 'invalid_request', 'request body too large', { page: false });
      return undefined;
    }
    replayBody(ctx, raw);
    if (!namesScope(raw)) return next(); // most exchanges carry no scope: no form to parse
    const form = new URLSearchParams(raw.toString('utf8'));
    const scope = form.getAll('scope');
    const code = form.get('code');
    if (form.get('grant_type') !== 'authorization_code' || scope.length === 0 || !code) return next();
    if (scope.length > 1) {
      // oidc-provider checks duplicates only among the grant's own parameters, and scope is not one of them.
      return refuse(ctx, 'invalid_request', "'scope' parameter must only be provided once (RFC 6749 §3.1)");
    }
    const clientId = basicCredentials(ctx)?.[0] ?? form.get('client_id');
    const authorizationCode = await provider.AuthorizationCode.find(code, { ignoreExpiration: true });
    if (!clientId || !authorizationCode || authorizationCode.clientId !== clientId) return next();
    const approved = new Set((authorizationCode.scope ?? '').split(' ').filter(Boolean));
    const beyond = scope[0]!.split(' ').filter((s) => s && !approved.has(s));
    if (beyond.length === 0) return next();
    const client = await provider.Client.find(clientId);
    if (!client || !await presentsValidCredentials(ctx, form, client)) return next();
    return refuse(ctx, 'invalid_scope', `requested scope goes beyond the scope approved for this authorization code: ${[...new Set(beyond)].join(' ')}`);
  };
}

function refuse(ctx: ProviderContext, error: OAuthErrorCode, description: string): undefined {
  writeError(ctx as never, 400, error, description, { headers: { Pragma: 'no-cache' }, page: false });
  return undefined;
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
  return async function oauthOnlyMetadata(ctx: ProviderContext, next: Next) {
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
 * oidc-provider revokes when it reads a code already marked consumed; when two exchanges race, the loser is
 * stopped by the storage's atomic `consume` instead, and nothing is revoked. This closes that gap: after any
 * `invalid_grant` for an authorization code that is by now consumed, the code's grant (its tokens, codes and
 * the Grant record) is revoked, so even the racing winner's tokens stop working (their Grant no longer exists).
 */
export function revokeOnCodeReplay(provider: Provider, tokenPath: string) {
  return async function codeReplay(ctx: ProviderContext, next: Next) {
    await next();
    if (ctx.method !== 'POST' || ctx.path !== tokenPath || ctx.status !== 400) return;
    const params = ctx.oidc?.params as { grant_type?: string; code?: string } | undefined;
    if (params?.grant_type !== 'authorization_code' || typeof params.code !== 'string') return;
    if ((ctx.body as { error?: string } | undefined)?.error !== 'invalid_grant') return;
    const code = await provider.AuthorizationCode.find(params.code, { ignoreExpiration: true });
    if (!(code as { consumed?: number } | undefined)?.consumed || !code?.grantId) return;
    const { grantId } = code;
    await Promise.all([
      provider.AccessToken.revokeByGrantId(grantId),
      provider.RefreshToken.revokeByGrantId(grantId),
      provider.AuthorizationCode.revokeByGrantId(grantId),
      provider.Grant.adapter.destroy(grantId),
    ]);
  };
}

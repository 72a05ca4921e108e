import type { Context, Middleware, Next } from 'koa';
import { authenticate, bearerToken, InvalidTokenError, type AuthInfo, type TokenVerification } from './auth-context.js';
import { sendGraphqlError } from './errors.js';
import { noteStorageOutage, storageOutageOf } from '../core/outage-note.js';
import { DPOP_ALGORITHMS } from '../core/dpop-algorithms.js';
import { sendStorageOutage } from './storage-outage.js';

/**
 * Resolves the caller from `Authorization: Bearer` or `Authorization: DPoP` (RFC 6750, RFC 9449 §7) into
 * `ctx.state.auth` (`null` when anonymous: no `Authorization` header). An invalid token or DPoP proof gets 401 with
 * `WWW-Authenticate` naming `invalid_token` or `invalid_dpop_proof`; an empty or malformed Bearer/DPoP header or an
 * `access_token` in the URL query 400 `invalid_request`, saying what was wrong; another scheme (`Basic`) 401 with a
 * bare `Bearer` challenge (RFC 6750 §3.1). When the storage does not answer (an opaque token's lookup, a
 * DPoP proof's `jti`), 503 `TEMPORARILY_UNAVAILABLE` with `Retry-After`; the request log line then says so at
 * `warn` (lib/core/outage-note.ts).
 */
export function bearerAuth(verification: TokenVerification): Middleware {
  // Anonymous requests (no Authorization header) pass without an async step; a presented token is verified.
  return function resolveBearer(ctx: Context, next: Next) {
    // RFC 6750 §2.3 is optional and discouraged (URLs land in logs, caches and Referer): refused, as oidc-provider
    // refuses it at userinfo, rather than ignored, which would run the request anonymously in silence.
    if (ctx.querystring !== '' && new URLSearchParams(ctx.querystring).has('access_token')) {
      return refuse(
        ctx,
        new InvalidTokenError(
          'access tokens are not accepted in the URL query: send them in the Authorization header',
          'invalid_request',
        ),
        presentedScheme(ctx),
      );
    }
    // An empty header is a mistake (an unset variable in `Authorization: Bearer $TOKEN`), not an anonymous call.
    const header = ctx.headers.authorization;
    if (header === undefined) {
      ctx.state.auth = null;
      return next();
    }
    return verifyPresented(ctx, next, header);
  };

  async function verifyPresented(ctx: Context, next: Next, header: string) {
    let auth: AuthInfo | null = null;
    const scheme = presentedScheme(ctx);
    try {
      const presented = bearerToken(header);
      if (presented) {
        auth = await authenticate(verification, presented.token, {
          scheme: presented.scheme,
          proof: ctx.headers.dpop,
          method: ctx.method,
          url: `${ctx.protocol}://${ctx.host}${ctx.path}`,
        });
      }
    } catch (err) {
      const outage = storageOutageOf(err);
      if (outage) {
        noteStorageOutage(ctx.req, outage);
        return sendStorageOutage(ctx);
      }
      if (!(err instanceof InvalidTokenError)) throw err;
      return refuse(ctx, err, scheme);
    }
    ctx.state.auth = auth;
    return next();
  }
}

/** Characters RFC 6750 §3 leaves out of `error_description` (a quoted-string of %x20-21 / %x23-5B / %x5D-7E). */
const NOT_IN_DESCRIPTION = /[^\x20\x21\x23-\x5b\x5d-\x7e]/g;

/**
 * Answers a refused token with its RFC 6750 §3 challenge: `400 BAD_REQUEST` for `invalid_request`, else
 * `401 UNAUTHENTICATED`; a challenge without error attributes when no Bearer or DPoP credentials were sent (§3.1).
 */
function refuse(ctx: Context, err: InvalidTokenError, scheme: 'Bearer' | 'DPoP'): void {
  const params =
    err.error === null
      ? []
      : [`error="${err.error}"`, `error_description="${err.message.replace(NOT_IN_DESCRIPTION, "'")}"`];
  ctx.set('WWW-Authenticate', challenge(err.error === 'invalid_dpop_proof' ? 'DPoP' : scheme, params));
  if (err.status === 400)
    return sendGraphqlError(ctx, 400, 'BAD_REQUEST', `Malformed access token request: ${err.message}.`);
  return sendGraphqlError(
    ctx,
    401,
    'UNAUTHENTICATED',
    `${err.error === null ? 'No usable access token' : 'Invalid access token'}: ${err.message}.`,
  );
}

/**
 * The scheme the request presented its token in: `DPoP` for `Authorization: DPoP <something>` (any case, RFC 9110
 * §11.1), else `Bearer` (a bare `DPoP` carries no token). A resource server answers a DPoP request with a DPoP
 * challenge (RFC 9449 §7.1).
 */
export function presentedScheme(ctx: Context): 'Bearer' | 'DPoP' {
  return /^dpop\s/i.test(ctx.get('Authorization')) ? 'DPoP' : 'Bearer';
}

/**
 * The DPoP challenge's `algs` (RFC 9449 §7.1): the proof algorithms this endpoint accepts ({@link DPOP_ALGORITHMS}).
 */
const DPOP_ALGS = `algs="${DPOP_ALGORITHMS.join(' ')}"`;

/**
 * A `WWW-Authenticate` value: `scheme` with `params` (auth-params, already quoted); a DPoP challenge names its `algs`.
 */
export function challenge(scheme: 'Bearer' | 'DPoP', params: readonly string[]): string {
  const all = scheme === 'DPoP' ? [...params, DPOP_ALGS] : params;
  return all.length ? `${scheme} ${all.join(', ')}` : scheme;
}

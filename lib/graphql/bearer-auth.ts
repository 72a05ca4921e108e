import type { Context, Middleware, Next } from 'koa';
import { authenticate, bearerToken, InvalidTokenError, type AuthInfo, type TokenVerification } from './auth-context.js';
import { sendGraphqlError } from './errors.js';
import { noteStorageOutage } from '../core/outage-note.js';
import { sendStorageOutage, storageOutageOf } from './storage-outage.js';

/**
 * Resolves the caller from `Authorization: Bearer` or `Authorization: DPoP` (RFC 6750, RFC 9449 §7) into
 * `ctx.state.auth` (`null` when anonymous). An invalid token or DPoP proof gets 401 with `WWW-Authenticate`
 * naming `invalid_token` or `invalid_dpop_proof`. When the storage does not answer (an opaque token's lookup, a
 * DPoP proof's `jti`), 503 `TEMPORARILY_UNAVAILABLE` with `Retry-After`; the request log line then says so at
 * `warn` (lib/core/outage-note.ts).
 */
export function bearerAuth(verification: TokenVerification): Middleware {
  // Anonymous requests (no Authorization header) pass without an async step; a presented token is verified.
  return function resolveBearer(ctx: Context, next: Next) {
    const header = ctx.get('Authorization') || undefined;
    if (header === undefined) {
      ctx.state.auth = null;
      return next();
    }
    return verifyPresented(ctx, next, header);
  };

  async function verifyPresented(ctx: Context, next: Next, header: string) {
    let auth: AuthInfo | null = null;
    const scheme = header && /^dpop /i.test(header) ? 'DPoP' : 'Bearer';
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
      const challenge = err.error === 'invalid_dpop_proof' ? 'DPoP' : scheme;
      ctx.set('WWW-Authenticate', `${challenge} error="${err.error}", error_description="${err.message}"${challenge === 'DPoP' ? ', algs="ES256 EdDSA PS256 RS256"' : ''}`);
      return sendGraphqlError(ctx, 401, 'UNAUTHENTICATED', `Invalid access token: ${err.message}.`);
    }
    ctx.state.auth = auth;
    return next();
  }
}

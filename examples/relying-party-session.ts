/**
 * A client backend (relying party) that opens a session from what a browser posts after the implicit flow:
 * `{ access_token, email }`. It never trusts the pairing: {@link verifyAccessTokenForUser} checks with the
 * authorization server that the token is active, was issued to this client, and belongs to the user whose
 * e-mail was posted (SPEC, Authentication). Run it next to `npm start`:
 *
 * ```ts
 * const app = relyingPartyApp({ issuer: 'http://localhost:3000', clientId: 'demo-web', clientSecret: 'demo-web-secret' });
 * app.listen(8080);
 * // POST /session  {"access_token":"…","email":"alice@example.com"} → 200 {"sub":"alice"} or 401
 * ```
 */
import Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import { TokenPairingError, verifyAccessTokenForUser } from '../lib/rp/index.js';

export interface RelyingPartyOptions {
  issuer: string;
  clientId: string;
  /** Omit for a public client (e.g. the `demo-spa` of the demo server). */
  clientSecret?: string;
}

/** A Koa app with `POST /session` (JSON `{ access_token, email }`). */
export function relyingPartyApp(options: RelyingPartyOptions): Koa {
  const app = new Koa();
  app.use(bodyParser({ enableTypes: ['json'] }));
  app.use(async function openSession(ctx) {
    if (ctx.method !== 'POST' || ctx.path !== '/session') return;
    const body = (ctx.request.body ?? {}) as { access_token?: unknown; email?: unknown };
    if (typeof body.access_token !== 'string' || typeof body.email !== 'string') {
      ctx.status = 400;
      ctx.body = { error: 'access_token and email are required' };
      return;
    }
    try {
      const user = await verifyAccessTokenForUser({
        ...options,
        accessToken: body.access_token,
        claimed: { email: body.email },
        requiredScopes: ['openid', 'email'],
      });
      // A real app would now set its own session cookie for user.sub.
      ctx.body = { sub: user.sub, email: user.claims?.email };
    } catch (err) {
      if (!(err instanceof TokenPairingError)) throw err;
      ctx.status = err.code === 'ERR_INTROSPECTION_FAILED' ? 503 : 401;
      ctx.body = { error: err.code };
    }
  });
  return app;
}

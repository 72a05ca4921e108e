import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';

const COOKIE = 'portcullis.csrf';

/**
 * CSRF tokens for our HTML forms (OWASP CSRF Cheat Sheet, signed double-submit cookie): a random cookie,
 * SameSite=Strict and scoped to the form's path, plus a form field that is an HMAC of the cookie and the path
 * under a server secret, so a cookie planted by a sibling host cannot be paired with a forged field.
 */
export class CsrfGuard {
  readonly #secret: string;

  constructor(secret: string) {
    this.#secret = secret;
  }

  #sign(scope: string, nonce: string): string {
    return createHmac('sha256', this.#secret).update(`${scope}\n${nonce}`).digest('base64url');
  }

  /** Issues (or reuses) the cookie for `scope` (a path) and returns the token to embed in the form. */
  issue(ctx: Context, scope: string): string {
    let nonce = ctx.cookies.get(COOKIE);
    if (!nonce || !/^[\w-]{43}$/.test(nonce)) {
      nonce = randomBytes(32).toString('base64url');
      ctx.cookies.set(COOKIE, nonce, { httpOnly: true, sameSite: 'strict', path: scope, secure: ctx.secure, signed: false, overwrite: true });
    }
    return this.#sign(scope, nonce);
  }

  /** Constant-time check of a submitted token against the request's cookie. */
  verify(ctx: Context, scope: string, token: unknown): boolean {
    const nonce = ctx.cookies.get(COOKIE);
    if (!nonce || typeof token !== 'string') return false;
    const expected = Buffer.from(this.#sign(scope, nonce));
    const actual = Buffer.from(token);
    return expected.length === actual.length && timingSafeEqual(expected, actual);
  }
}

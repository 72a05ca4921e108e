import Cookies from 'cookies';
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';

/** The cookie's name on plain-http (development) issuers. */
export const CSRF_COOKIE = 'portcullis.csrf';
/**
 * The cookie's name on https issuers: the `__Host-` prefix (RFC 6265bis §4.1.3.2) makes browsers accept it only
 * with `Secure`, `Path=/` and no `Domain` from this very host, so a sibling host cannot set or shadow it.
 */
export const CSRF_COOKIE_SECURE = `__Host-${CSRF_COOKIE}`;
const NONCE = /^[\w-]{43}$/;

/**
 * What a form's token is for: `scope`, the path the form belongs to (under the issuer's path), and `binding`, the
 * identifier of the sign-in state it was shown in (an oidc-provider interaction uid, a provider session), or `''`
 * for forms shown before any (sign-up, password reset). A token verifies only for the same scope and binding.
 */
export interface CsrfForm {
  scope: string;
  binding: string;
}

/**
 * CSRF tokens for our HTML forms (OWASP CSRF Cheat Sheet, signed double-submit cookie): a random nonce in an
 * HttpOnly, SameSite=Lax cookie, one for every form the guard serves, and a form field that is an HMAC, under a
 * server secret, of the form's {@link CsrfForm} (scope and binding) and the nonce.
 *
 * On an https issuer the cookie is `__Host-portcullis.csrf` with `Path=/` (the prefix allows no other), which no
 * sibling host can plant ("cookie tossing"), and a plain `portcullis.csrf` is never read. On plain-http issuers it
 * is `portcullis.csrf` with `Path=` the guard's `cookiePath` (the issuer's path for the pages, `graphql.path` for
 * GraphQL's form transport), so that under `http://host/auth` the other applications of the host do not receive
 * it, like every other cookie of the issuer. The binding covers what the cookie cannot: a token minted in the
 * attacker's own session or sign-in is useless with the victim's, even where a planted cookie would be read. The
 * request's scheme is pinned to the issuer's (`ctx.secure`, lib/http/issuer-host.ts), so issuing and checking
 * always agree on the name.
 *
 * Why Lax rather than Strict: one cookie serves every form, and a browser arriving from another site (a client
 * sending it to sign in, a link in a mail) does not send a Strict cookie; the page would then replace the nonce
 * and break the forms open in other tabs. A Lax cookie still stays home on cross-site POSTs, and the sites that
 * differ between Lax and Strict are never sibling hosts (those are same-site for both).
 */
export class CsrfGuard {
  readonly #secret: string;
  readonly #cookiePath: string;

  /**
   * `secret`: the HMAC key (a server secret derived from the cookie keys). `cookiePath`: the cookie's `Path` on a
   * plain-http issuer, the path on the host under which every form and endpoint using this guard is served (the
   * issuer's path, e.g. `/auth`, or `/` at the host's root); default `/`. On https the path is always `/`.
   */
  constructor(secret: string, cookiePath = '/') {
    this.#secret = secret;
    this.#cookiePath = cookiePath || '/';
  }

  /**
   * The guard whose key is derived from the first cookie key (SHA-256 of `portcullis-csrf` and the key, so it
   * never equals a cookie-signing key), with its cookie under `cookiePath` on plain http.
   */
  static fromCookieKey(cookieKey: string, cookiePath = '/'): CsrfGuard {
    return new CsrfGuard(createHash('sha256').update(`portcullis-csrf\n${cookieKey}`).digest('base64url'), cookiePath);
  }

  /** The same guard (same key, so the same tokens) with its cookie under `cookiePath` on plain http. */
  under(cookiePath: string): CsrfGuard {
    return new CsrfGuard(this.#secret, cookiePath);
  }

  #sign(form: CsrfForm, nonce: string): string {
    return createHmac('sha256', this.#secret).update(`${form.scope}\n${form.binding}\n${nonce}`).digest('base64url');
  }

  /** The nonce cookie of this request under the name its scheme reads, if well-formed. */
  #nonce(cookies: Cookies, secure: boolean): string | undefined {
    const nonce = cookies.get(secure ? CSRF_COOKIE_SECURE : CSRF_COOKIE);
    return nonce && NONCE.test(nonce) ? nonce : undefined;
  }

  /**
   * Returns the token to embed in `form`'s page (field `csrf`), setting the nonce cookie when the browser has none
   * yet (an existing one is kept, so every tab's token stays valid).
   */
  issue(ctx: Context, form: CsrfForm): string {
    // Our own Cookies: a host app's middleware may have created `ctx.cookies` before this request was pinned to an
    // https issuer, and that instance refuses to set a Secure cookie.
    const cookies = new Cookies(ctx.req, ctx.res, { secure: ctx.secure });
    let nonce = this.#nonce(cookies, ctx.secure);
    if (!nonce) {
      nonce = randomBytes(32).toString('base64url');
      const path = ctx.secure ? '/' : this.#cookiePath;
      const options = { httpOnly: true, sameSite: 'lax', secure: ctx.secure, signed: false, overwrite: true } as const;
      cookies.set(ctx.secure ? CSRF_COOKIE_SECURE : CSRF_COOKIE, nonce, { ...options, path });
    }
    return this.#sign(form, nonce);
  }

  /** Whether `token` (the submitted `csrf` field) was issued for `form` with this request's cookie; constant time. */
  verify(ctx: Context, form: CsrfForm, token: unknown): boolean {
    const nonce = this.#nonce(new Cookies(ctx.req, ctx.res), ctx.secure);
    if (!nonce || typeof token !== 'string') return false;
    const expected = Buffer.from(this.#sign(form, nonce));
    const actual = Buffer.from(token);
    return expected.length === actual.length && timingSafeEqual(expected, actual);
  }
}

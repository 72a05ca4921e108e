import { randomBytes } from 'node:crypto';
import type { Context, Next } from 'koa';

/**
 * Sets the headers of every HTML page Portcullis renders and returns the CSP nonce for its inline style and its
 * script elements (only our own external script files carry it, e.g. a feature's page script; no inline script).
 *
 * No `form-action` directive: Chromium applies it to the redirect that follows a form submission, which would
 * block the final redirect to the client's redirect_uri after consent.
 */
export function setPageSecurityHeaders(ctx: Context, imgOrigin?: string): string {
  const nonce = randomBytes(16).toString('base64');
  // `imgOrigin`: the one extra image origin of a page (a client logo, see client-logo.ts).
  ctx.set(
    'Content-Security-Policy',
    `default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; img-src ` +
      `'self'${imgOrigin ? ` ${imgOrigin}` : ''}; base-uri 'none'; frame-ancestors 'none'`,
  );
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Pragma', 'no-cache');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
  return nonce;
}

/**
 * Middleware before oidc-provider on the endpoints whose answer may be one of its own HTML pages: the
 * `response_mode=form_post` auto-submit page and the `web_message` page (authorization and resume), and the
 * auto-submitting logout form of `/session/end` without a session (and of an account switch on resume). Sets the
 * page headers first; oidc-provider then adds the `sha256-…` of its one inline script to the `script-src` it finds
 * (its lib/helpers/script_src_sha.js), so that script runs and no other inline script does. Redirects and JSON
 * answers carry the headers too, harmlessly.
 *
 * A `web_message` page posts the response to the window that opened or framed it, so oidc-provider takes away
 * `X-Frame-Options` and `frame-ancestors`; `Cross-Origin-Opener-Policy` would cut it off from its opener, so it goes
 * too on such a page.
 */
export async function providerPageHeaders(ctx: Context, next: Next): Promise<void> {
  setPageSecurityHeaders(ctx);
  await next();
  if (
    !ctx.response.get('X-Frame-Options') &&
    ctx.response.get('Content-Security-Policy')?.includes('frame-ancestors') === false
  ) {
    ctx.remove('Cross-Origin-Opener-Policy');
  }
  keepOpenerForWebMessage(
    ctx,
    (ctx as { oidc?: { params?: { response_mode?: unknown } } }).oidc?.params?.response_mode,
  );
}

/**
 * Takes `Cross-Origin-Opener-Policy` off every page and redirect of an authorization request with
 * `response_mode=web_message` (the redirect to the login page, the sign-in steps' and consent pages).
 * A popup that loads one document with `same-origin` from another origin than its opener loses its opener for
 * good (HTML §7.1.3, browsing context group switch), so the `web_message` page at the end would post to no one
 * and the relying party would never get its answer. Framing stays refused on those pages.
 */
export function keepOpenerForWebMessage(ctx: Context, responseMode: unknown): void {
  if (responseMode === 'web_message') ctx.remove('Cross-Origin-Opener-Policy');
}

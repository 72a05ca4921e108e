import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';

/**
 * Sets the headers of every HTML page Portcullis renders and returns the CSP nonce for its inline style and its
 * script elements (only our own external script files carry it, e.g. the passkey script; no inline script).
 *
 * No `form-action` directive: Chromium applies it to the redirect that follows a form submission, which would
 * block the final redirect to the client's redirect_uri after consent.
 */
export function setPageSecurityHeaders(ctx: Context, imgOrigin?: string): string {
  const nonce = randomBytes(16).toString('base64');
  // `imgOrigin`: the one extra image origin of a page (a client logo, see client-logo.ts).
  ctx.set('Content-Security-Policy', `default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; img-src 'self'${imgOrigin ? ` ${imgOrigin}` : ''}; base-uri 'none'; frame-ancestors 'none'`);
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Pragma', 'no-cache');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
  return nonce;
}

import { bodyParser } from '@koa/bodyparser';
import type { Context, Middleware, Next } from 'koa';
import type { CsrfGuard } from './csrf.js';
import { html, raw, type SafeHtml } from './html.js';
import { setPageSecurityHeaders } from './security-headers.js';

/**
 * What every HTML page of Portcullis shares, written once for the login and consent pages
 * (lib/oidc/interaction/) and the account pages (lib/accounts/actions/): the page frame, rendering with the page
 * security headers, form body parsing, the CSRF check of a form and the 429 answer of a rate-limited form.
 */

const STYLE = `body{font-family:system-ui,sans-serif;background:#f4f5f7;margin:0;padding:40px 16px;color:#1d2330}
main{max-width:380px;margin:0 auto;background:#fff;border-radius:8px;padding:28px;box-shadow:0 1px 4px rgba(0,0,0,.15)}
h1{font-size:1.3em;margin:0 0 16px}label{display:block;margin:12px 0 4px;font-weight:600}
input[type=email],input[type=password],input[type=text]{width:100%;box-sizing:border-box;padding:8px;border:1px solid #9aa3b2;border-radius:4px;font-size:1em}
button{margin-top:18px;padding:9px 18px;border:0;border-radius:4px;font-size:1em;cursor:pointer;background:#2457c5;color:#fff}
button.secondary{background:#e4e7ec;color:#1d2330;margin-left:8px}.error{background:#fdecea;color:#8a1c12;padding:10px;border-radius:4px}
ul{padding-left:20px}li{margin:6px 0}code{background:#eef0f3;padding:1px 4px;border-radius:3px}`;

/** The page frame shared by every Portcullis page: inline style under the CSP `nonce`, no external assets. */
export function layout(nonce: string, title: string, body: SafeHtml): string {
  return html`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><style nonce="${nonce}">${raw(STYLE)}</style></head>
<body><main>${body}</main></body></html>`.value;
}

/** An error page for errors that cannot be sent back to the client. Names the OAuth `error` code. */
export function errorPage(nonce: string, error: string, description?: string): string {
  return layout(nonce, 'Request refused', html`<h1>Request refused</h1>
<p class="error">error: <code id="error">${error}</code></p>
${description ? html`<p id="error_description">${description}</p>` : ''}
<p>The application that sent you here made a request this server cannot accept. No data was shared.</p>`);
}

/** Builds a page's HTML from the CSP nonce of its inline style. */
export type PageBuilder = (nonce: string) => string;

/**
 * Answers `status` with the page `build` returns, under the page security headers (CSP with a fresh nonce,
 * no-store, frame denial; see security-headers.ts). `imgOrigin` is the one extra image origin a page may load.
 */
export function renderPage(ctx: Context, status: number, build: PageBuilder, imgOrigin?: string): void {
  const nonce = setPageSecurityHeaders(ctx, imgOrigin);
  ctx.status = status;
  ctx.type = 'html';
  ctx.body = build(nonce);
}

/**
 * Answers a rate-limited form (RFC 6585 §4): status 429 with `Retry-After` in seconds (RFC 9110 §10.2.3) and
 * the page `build` returns (the form again with an error, or a message).
 */
export function renderTooManyRequests(ctx: Context, retryAfterSeconds: number, build: PageBuilder): void {
  ctx.set('Retry-After', String(retryAfterSeconds));
  renderPage(ctx, 429, build);
}

/** Parses `application/x-www-form-urlencoded` bodies of our forms, at most 16 KiB (larger: 413). */
export const parseForm: Middleware = bodyParser({ enableTypes: ['form'], formLimit: '16kb' });

/** The parsed form of the request (empty before {@link parseForm} or for a GET). */
export function formBody(ctx: Context): Record<string, unknown> {
  return (ctx.request.body ?? {}) as Record<string, unknown>;
}

/** A string field of a form, or `''` when missing, not a string or longer than `max` characters. */
export function formField(body: Record<string, unknown>, name: string, max: number): string {
  const value = body[name];
  return typeof value === 'string' && value.length <= max ? value : '';
}

/**
 * Middleware that lets a form submission through only with a valid CSRF token in its `csrf` field for the path
 * `scopeOf(ctx)` (see {@link CsrfGuard}); otherwise `refuse` answers (status 403 in both page families).
 * Runs after {@link parseForm}.
 */
export function csrfCheck(guard: CsrfGuard, scopeOf: (ctx: Context) => string, refuse: (ctx: Context) => void): Middleware {
  return async function checkCsrf(ctx: Context, next: Next) {
    if (guard.verify(ctx, scopeOf(ctx), formBody(ctx).csrf)) return next();
    refuse(ctx);
  };
}

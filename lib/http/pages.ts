import { bodyParser } from '@koa/bodyparser';
import type { Context, Middleware, Next } from 'koa';
import type { CsrfForm, CsrfGuard } from './csrf.js';
import { html, raw, type SafeHtml } from '../ui/html.js';
import { encodingDefect } from './form-encoding.js';
import type { IncomingMessage } from 'node:http';
import { setPageSecurityHeaders } from './security-headers.js';
import type { MessageKey } from '../ui/i18n.js';
import { templateOutput, type ErrorSituation, type ErrorView } from '../ui/templates.js';
import { frameParts, pageBody, templateKit, uiOf, type PageUi } from '../ui/ui.js';

/**
 * What every HTML page of Portcullis shares, written once for the login and consent pages
 * (lib/oidc/interaction/) and the account pages (lib/accounts/actions/): the page frame, rendering with the page
 * security headers, form body parsing, the CSRF check of a form and the 429 answer of a rate-limited form.
 */

/**
 * The page frame shared by every Portcullis page: the request's language, the operator's name or logo, the style
 * sheet (colours as CSS custom properties, dark scheme) inline under the CSP `nonce`, no external assets, and the
 * footer. `ui` is the request's UI ({@link uiOf}); without it, the defaults in English. A host's
 * `ui.templates.layout` replaces the frame.
 */
export function layout(nonce: string, title: string, body: SafeHtml, ui: PageUi = DEFAULT_UI()): string {
  const { header, footer } = frameParts(ui);
  const style = html`<style nonce="${nonce}">${raw(ui.settings.styleSheet)}</style>`;
  const fullTitle = title === ui.settings.productName ? title : `${title} – ${ui.settings.productName}`;
  const custom = ui.settings.templates.layout;
  if (custom)
    return templateOutput(
      custom({ lang: ui.locale, title: fullTitle, nonce, style, header, body, footer }, templateKit(ui)),
    ).value;
  return html`<!DOCTYPE html>
<html lang="${
    ui.locale
  }"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${fullTitle}</title>${style}</head>
<body>${header}<main>${body}</main>${footer}</body></html>`.value;
}

const DEFAULT_UI = () => uiOf({ req: { headers: {} } as IncomingMessage });

/** The OAuth `error` code's situation, for its words on the error page (see {@link ErrorSituation}). */
export function situationOf(error: string): ErrorSituation {
  switch (error) {
    case 'access_denied':
      return 'denied';
    case 'login_required':
    case 'consent_required':
    case 'interaction_required':
    case 'account_selection_required':
      return 'login';
    case 'server_error':
      return 'server';
    case 'temporarily_unavailable':
      return 'busy';
    default:
      return 'client';
  }
}

/**
 * An error page for errors that cannot be sent back to the client: a title and what happened and what to do in
 * the request's language (`opts.ui`, else English), the OAuth `error` code (`#error`) and description
 * (`#error_description`) in small print. `ui.templates.error` replaces its body.
 */
export function errorPage(
  nonce: string,
  error: string,
  description?: string,
  opts: { ui?: PageUi; situation?: ErrorSituation } = {},
): string {
  const ui = opts.ui ?? DEFAULT_UI();
  const { t } = ui;
  const situation = opts.situation ?? situationOf(error);
  const key = (part: 'title' | 'what' | 'todo') => `error.${situation}.${part}` as MessageKey;
  const product = { product: ui.settings.productName };
  const say = (part: 'title' | 'what' | 'todo') =>
    (t.t as (k: MessageKey, p: Record<string, string>) => string)(key(part), product);
  const view: ErrorView = { nonce, ui, error, description, situation };
  const body = pageBody(
    ui,
    'error',
    view,
    () => html`<h1>${say('title')}</h1>
<p id="what">${say('what')}</p>
<p id="todo">${say('todo')}</p>
<p class="small">${t.t('error.code')} <code id="error">${error}</code>${
      description ? html` <span id="error_description">${description}</span>` : ''
    }</p>`,
  );
  return layout(nonce, say('title'), body, ui);
}

/** Builds a page's HTML from the CSP nonce of its inline style and the request's UI (language, branding). */
export type PageBuilder = (nonce: string, ui: PageUi) => string;

/**
 * Answers `status` with the page `build` returns, under the page security headers (CSP with a fresh nonce,
 * no-store, frame denial; see security-headers.ts). `imgOrigin` is the one extra image origin a page may load.
 */
export function renderPage(ctx: Context, status: number, build: PageBuilder, imgOrigin?: string): void {
  const nonce = setPageSecurityHeaders(ctx, imgOrigin);
  ctx.status = status;
  ctx.type = 'html';
  ctx.body = build(nonce, uiOf(ctx));
}

/**
 * Answers a rate-limited form (RFC 6585 §4): status 429 with `Retry-After` in seconds (RFC 9110 §10.2.3) and
 * the page `build` returns (the form again with an error, or a message).
 */
export function renderTooManyRequests(ctx: Context, retryAfterSeconds: number, build: PageBuilder): void {
  ctx.set('Retry-After', String(retryAfterSeconds));
  renderPage(ctx, 429, build);
}

const readForm: Middleware = bodyParser({
  enableTypes: ['form'],
  formLimit: '16kb',
  // A body that cannot be read is the client's mistake, never a 500: a corrupt gzip or br body (zlib's error has
  // no status), a Content-Encoding the reader cannot undo (415), one over the limit (413).
  onError(err, ctx) {
    const status = (err as { status?: number }).status;
    if (status === 413) ctx.throw(413, 'The form is larger than this page accepts.');
    if (status === 415)
      ctx.throw(
        415,
        'This Content-Encoding is not supported: send the form as is, or compressed once with gzip, deflate or br.',
      );
    ctx.throw(400, 'The form could not be read.');
  },
});

/**
 * Parses `application/x-www-form-urlencoded` bodies of our forms, at most 16 KiB (larger: 413). A malformed
 * percent-encoding (`%ZZ`, percent-encoded bytes that are not UTF-8; {@link encodingDefect}) is `400 invalid_request`
 * naming it, where the parser would keep it as text or put U+FFFD in its place.
 */
export const parseForm: Middleware = function parseForm(ctx: Context, next: Next) {
  return readForm(ctx, () => {
    const raw = (ctx.request as { rawBody?: unknown }).rawBody;
    const defect = typeof raw === 'string' ? encodingDefect(raw, 'form body') : undefined;
    if (defect) ctx.throw(400, defect);
    return next();
  });
};

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
 * Middleware that lets a form submission through only with a valid CSRF token in its `csrf` field for the form
 * `formOf(ctx)` (its scope and binding, see {@link CsrfGuard}); otherwise `refuse` answers (status 403 in both page
 * families). Runs after {@link parseForm}, and after whatever puts the binding on the request (the interaction,
 * the signed-in session).
 */
export function csrfCheck(
  guard: CsrfGuard,
  formOf: (ctx: Context) => CsrfForm,
  refuse: (ctx: Context) => void,
): Middleware {
  return async function checkCsrf(ctx: Context, next: Next) {
    if (guard.verify(ctx, formOf(ctx), formBody(ctx).csrf)) return next();
    refuse(ctx);
  };
}

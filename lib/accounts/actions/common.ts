import type { Context, Middleware, Next } from 'koa';
import type { CsrfGuard } from '../../http/csrf.js';
import { csrfCheck, formBody, formField, renderPage, renderTooManyRequests } from '../../http/pages.js';
import { mountedPath } from '../../http/routes.js';
import { MAX_EMAIL_LENGTH, MAX_PASSWORD_LENGTH } from '../input-rules.js';
import { INTERACTION_UID } from '../paths.js';
import type { AccountServices } from '../use-cases/services.js';
import { formPage, messagePage, type Field, type FormView } from '../views.js';

/** What the account actions need; built once by `accountFlows` (account-routes.ts). */
export interface AccountActionDeps {
  services: AccountServices;
  csrf: CsrfGuard;
  /** `selfService.signup` and a mailer. */
  signupOn: boolean;
}

/** A link under a page. */
export type PageLink = NonNullable<FormView['links']>[number];

/** One CSRF cookie path for every account form (under the issuer's path). */
const CSRF_SCOPE = '/account';

/** Our page paths (`/account/…`, `/interaction/…`) as the browser requests them: under the issuer's path. */
function linksUnderMount(ctx: Context, links: PageLink[] | undefined): PageLink[] | undefined {
  return links?.map((l) => (l.href.startsWith('/') ? { ...l, href: mountedPath(ctx, l.href) } : l));
}

/** The answer to every "we may have mailed you" request, the same whether or not the address has an account. */
export const MAIL_SENT_TEXT = 'If the address can receive mail from us, a message is on its way. Follow the link in it to continue. The link works once and expires.';

/** A message page (`#message`), marked as an error from status 400 on. */
export function message(ctx: Context, status: number, title: string, text: string, links?: PageLink[]): void {
  renderPage(ctx, status, (nonce) => messagePage(nonce, title, text, { error: status >= 400, links: linksUnderMount(ctx, links) }));
}

/** 429 with `Retry-After` and the account pages' message. */
export function tooMany(ctx: Context, retryAfterSeconds: number): void {
  renderTooManyRequests(ctx, retryAfterSeconds, (nonce) => messagePage(nonce, 'Too many attempts', 'Too many attempts. Please try again later.', { error: true }));
}

/** 404 for a page that is off in this deployment (sign-up off, or no mail). */
export function notFound(ctx: Context): void {
  message(ctx, 404, 'Not available', 'This page is not available on this server.');
}

/** 400 for a link that cannot be used, with a link to ask for a new one. */
export function invalidLink(ctx: Context, what: string, again: Omit<PageLink, 'id'>): void {
  message(ctx, 400, 'Link not valid', `This ${what} link is invalid, has expired or was already used.`, [{ id: 'again', ...again }]);
}

/** Renders an account form with a fresh CSRF token. */
export function showForm(ctx: Context, csrf: CsrfGuard, status: number, view: Omit<FormView, 'nonce' | 'csrfToken'>): void {
  const csrfToken = csrf.issue(ctx, mountedPath(ctx, CSRF_SCOPE));
  const action = mountedPath(ctx, view.action);
  renderPage(ctx, status, (nonce) => formPage({ ...view, action, links: linksUnderMount(ctx, view.links), nonce, csrfToken }));
}

/** Middleware: a form submission goes on only with the account forms' CSRF token; else 403. */
export function accountCsrf(csrf: CsrfGuard): Middleware {
  return csrfCheck(csrf, (ctx) => mountedPath(ctx, CSRF_SCOPE), (ctx) =>
    message(ctx, 403, 'Request refused', 'The form was not submitted from this page (missing or wrong CSRF token). Reload the page and try again.'));
}

/** Middleware: the pages that send mail answer 404 without a mailer. */
export function requireMail(services: AccountServices): Middleware {
  return async function requireMail(ctx: Context, next: Next) {
    if (!services.mail.enabled) return notFound(ctx);
    await next();
  };
}

/** The hidden `interaction` field that leads back to a pending login, when `uid` is well-formed. */
export function interactionField(uid: string): Record<string, string> {
  return INTERACTION_UID.test(uid) ? { interaction: uid } : {};
}

/** The interaction uid of the query (`?interaction=`), else of the form. */
export function interactionOf(ctx: Context): string {
  return typeof ctx.query.interaction === 'string' ? ctx.query.interaction : formField(formBody(ctx), 'interaction', 64);
}

/** A new-password field with the length hints of the password rules. */
export function newPasswordField(name: string, label: string, minLength: number): Field {
  return { name, label, type: 'password', autocomplete: 'new-password', minLength, maxLength: MAX_PASSWORD_LENGTH };
}

/** An e-mail field. */
export function emailField(name: string, label: string, autocomplete: string, value?: string): Field {
  return { name, label, type: 'email', value, autocomplete, maxLength: MAX_EMAIL_LENGTH };
}

import type { Context, Middleware, Next } from 'koa';
import type { CsrfForm, CsrfGuard } from '../../http/csrf.js';
import { csrfCheck, formBody, formField, renderPage, renderTooManyRequests } from '../../http/pages.js';
import { mountedPath } from '../../core/mount-path.js';
import { keepOpenerForWebMessage } from '../../http/security-headers.js';
import { MAX_EMAIL_LENGTH, MAX_PASSWORD_LENGTH } from '../input-rules.js';
import { ACCOUNT_CSRF_SCOPE, INTERACTION_UID } from '../paths.js';
import type { AccountServices } from '../use-cases/services.js';
import type { Translator } from '../../ui/i18n.js';
import { uiOf } from '../../ui/ui.js';
import type { InputProblem } from '../use-cases/services.js';
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

/** Our page paths (`/account/…`, `/interaction/…`) as the browser requests them: under the issuer's path. */
function linksUnderMount(ctx: Context, links: PageLink[] | undefined): PageLink[] | undefined {
  return links?.map((l) => (l.href.startsWith('/') ? { ...l, href: mountedPath(ctx, l.href) } : l));
}

/** The request's messages (its language: `ui_locales` query, then `Accept-Language`). */
export function words(ctx: Context): Translator {
  return uiOf(ctx).t;
}

/** A form problem in the request's language. */
export function problemText(ctx: Context, problem: InputProblem): string {
  return (words(ctx).t as (key: string, params?: Record<string, number>) => string)(
    problem.key,
    'params' in problem ? problem.params : undefined,
  );
}

/** A message page (`#message`), marked as an error from status 400 on. */
export function message(ctx: Context, status: number, title: string, text: string, links?: PageLink[]): void {
  renderPage(ctx, status, (nonce, ui) =>
    messagePage(nonce, title, text, { error: status >= 400, links: linksUnderMount(ctx, links), ui }),
  );
}

/** The answer to every "we may have mailed you" request, the same whether or not the address has an account. */
export function mailSent(ctx: Context, links?: PageLink[]): void {
  const t = words(ctx);
  message(ctx, 200, t.t('account.checkMail'), t.t('account.mailSent'), links);
}

/** 429 with `Retry-After` and the account pages' message. */
export function tooMany(ctx: Context, retryAfterSeconds: number): void {
  renderTooManyRequests(ctx, retryAfterSeconds, (nonce, ui) =>
    messagePage(nonce, ui.t.t('account.tooMany.title'), ui.t.t('account.tooMany'), { error: true, ui }),
  );
}

/** 404 for a page that is off in this deployment (sign-up off, or no mail). */
export function notFound(ctx: Context): void {
  const t = words(ctx);
  message(ctx, 404, t.t('account.notAvailable.title'), t.t('account.notAvailable'));
}

/** 400 for a link that cannot be used, with a link to ask for a new one. */
export function invalidLink(ctx: Context, what: 'confirmation' | 'reset', again: Omit<PageLink, 'id'>): void {
  const t = words(ctx);
  message(ctx, 400, t.t('account.linkInvalid.title'), t.t(`account.linkInvalid.${what}`), [{ id: 'again', ...again }]);
}

/**
 * The CSRF form of the self-service account pages (sign-up, verification, reset, e-mail change): shown before any
 * sign-in, so bound to none; on an https issuer their cookie cannot be planted by a sibling host. None of them
 * changes a signed-in account on the strength of the session: each needs a mailed link or the password.
 */
function selfServiceForm(ctx: Context): CsrfForm {
  return { scope: mountedPath(ctx, ACCOUNT_CSRF_SCOPE), binding: '' };
}

/** Renders an account form with a fresh CSRF token. */
export function showForm(
  ctx: Context,
  csrf: CsrfGuard,
  status: number,
  view: Omit<FormView, 'nonce' | 'csrfToken'>,
): void {
  const csrfToken = csrf.issue(ctx, selfServiceForm(ctx));
  const action = mountedPath(ctx, view.action);
  renderPage(ctx, status, (nonce, ui) =>
    formPage({ ...view, action, links: linksUnderMount(ctx, view.links), nonce, csrfToken, ui }),
  );
}

/** Middleware: a form submission goes on only with the account forms' CSRF token; else 403. */
export function accountCsrf(csrf: CsrfGuard): Middleware {
  return csrfCheck(csrf, selfServiceForm, (ctx) =>
    message(ctx, 403, words(ctx).t('account.refused.title'), words(ctx).t('account.refused')),
  );
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
  return typeof ctx.query.interaction === 'string'
    ? ctx.query.interaction
    : formField(formBody(ctx), 'interaction', 64);
}

/**
 * Middleware: an account page opened from the login page of a `response_mode=web_message` sign-in (it carries the
 * interaction's uid: sign-up, reset and the pages they lead to) drops `Cross-Origin-Opener-Policy` as that login page
 * does (`keepOpenerForWebMessage`): in the sign-in popup, one document with the policy cuts the popup off from the
 * relying party's window for good, and the answer is posted to no one. A uid of no pending sign-in, or a storage
 * error, keeps the policy.
 */
export function keepOpenerForWebMessageSignIn(
  responseModeOf: ((uid: string) => Promise<unknown>) | undefined,
): Middleware {
  return async function keepOpenerForWebMessageSignIn(ctx: Context, next: Next) {
    await next();
    const uid = interactionOf(ctx);
    if (!responseModeOf || !INTERACTION_UID.test(uid) || !ctx.response.get('Cross-Origin-Opener-Policy')) return;
    keepOpenerForWebMessage(ctx, await responseModeOf(uid).catch(() => undefined));
  };
}

/** A new-password field with the length hints of the password rules and the rule in words under it. */
export function newPasswordField(t: Translator, name: string, label: string, minLength: number): Field {
  return {
    name,
    label,
    type: 'password',
    autocomplete: 'new-password',
    minLength,
    maxLength: MAX_PASSWORD_LENGTH,
    hint: t.t('account.passwordRule', { min: minLength }),
  };
}

/** An e-mail field. */
export function emailField(name: string, label: string, autocomplete: string, value?: string): Field {
  return { name, label, type: 'email', value, autocomplete, maxLength: MAX_EMAIL_LENGTH };
}

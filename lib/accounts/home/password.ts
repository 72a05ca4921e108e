import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { AccountStore } from '../../core/account-store.js';
import type { VerificationTokens } from '../verification-tokens.js';
import type { Logger } from '../../core/logger.js';
import { html, type SafeHtml } from '../../ui/html.js';
import { formBody, formField, layout, renderPage, renderTooManyRequests } from '../../http/pages.js';
import { mountedPath } from '../../core/mount-path.js';
import { uiOf, type PageUi } from '../../ui/ui.js';
import type { AccountLimits } from '../account-limits.js';
import type { AccountMail } from '../account-mail.js';
import type { AccountSessions } from '../account-sessions.js';
import { MAX_PASSWORD_LENGTH, passwordProblem } from '../input-rules.js';
import { passwordChangedHereMail } from '../mail-templates.js';
import { messagePage } from '../views.js';
import { problemText } from '../actions/common.js';
import { HOME_PATHS } from '../paths.js';
import { finished, section, type SignedIn } from './common.js';

/** What the password change needs. */
export interface PasswordSectionDeps {
  accounts: AccountStore;
  logger: Logger;
  sessions: AccountSessions;
  /** The login rate limits: every attempt with a current password counts as a login attempt of the account. */
  limits: AccountLimits;
  mail: AccountMail;
  /** The e-mail links: a password change ends the account's reset links and pending e-mail changes. */
  linkTokens: VerificationTokens;
  /** `selfService.passwordMinLength`. */
  passwordMinLength: number;
  /** The password reset page (a "forgot your password?" link), when mail is on. */
  resetUrl?: string;
}

type Problem = { field: 'current' | 'new'; text: string };

/**
 * A required password input: `name` is `current_password` or `new_password`; its id and autocomplete are the
 * name with `-` for `_` (`current-password`, `new-password`), then the attributes of `more` (escaped already).
 */
function passwordInput(name: 'current_password' | 'new_password', more: SafeHtml): SafeHtml {
  const id = name.replace('_', '-');
  return html`<input id="${id}" type="password" name="${name}" required autocomplete="${id}"${more}>`;
}

/**
 * The password change form (`#password-form`): `current_password` (autocomplete `current-password`) and
 * `new_password` (`new-password`, the password rule as its hint). With `problem`, its text is shown as an alert
 * and the field it is about gets `aria-invalid` and the focus.
 */
function passwordForm(ui: PageUi, action: string, csrfToken: string, min: number, problem?: Problem): SafeHtml {
  const { t } = ui;
  const invalid = (field: Problem['field']) =>
    problem?.field === field ? html` aria-invalid="true" autofocus aria-errormessage="password-error"` : '';
  return html`${problem ? html`<p class="error" role="alert" id="password-error">${problem.text}</p>` : ''}
<form method="post" action="${action}" id="password-form">
<input type="hidden" name="csrf" value="${csrfToken}">
<label for="current-password">${t.t('account.changePassword.current')}</label>${passwordInput(
    'current_password',
    html` maxlength="${MAX_PASSWORD_LENGTH}"${invalid('current')}`,
  )}
<label for="new-password">${t.t('account.changePassword.new')}</label>${passwordInput(
    'new_password',
    html` minlength="${min}" maxlength="${MAX_PASSWORD_LENGTH}" aria-describedby="new-password-hint"${invalid('new')}`,
  )}
<p class="hint" id="new-password-hint">${t.t('account.passwordRule', { min })}</p>
<button type="submit" id="change-password-submit">${t.t('account.changePassword.submit')}</button>
</form>`;
}

/** The "Password" section of the account page: the change form and, with mail, a link to the reset page. */
export function passwordSection(ctx: Context, deps: PasswordSectionDeps, csrfToken: string): SafeHtml {
  const ui = uiOf(ctx);
  const form = passwordForm(ui, mountedPath(ctx, HOME_PATHS.password), csrfToken, deps.passwordMinLength);
  const forgot = deps.resetUrl
    ? html`<p><a id="change-password" href="${mountedPath(ctx, deps.resetUrl)}">${ui.t.t(
        'account.changePassword.forgot',
      )}</a></p>`
    : '';
  return section(ui.t.t('account.changePassword.title'), html`${form}${forgot}`, 'password');
}

/** The form again, alone on a page, with `problem` (status 400 or 401). */
function showProblem(
  ctx: Context,
  deps: PasswordSectionDeps,
  csrfToken: string,
  status: number,
  problem: Problem,
): void {
  renderPage(ctx, status, (nonce, ui) => {
    const title = ui.t.t('account.changePassword.title');
    const form = passwordForm(ui, mountedPath(ctx, HOME_PATHS.password), csrfToken, deps.passwordMinLength, problem);
    return layout(
      nonce,
      title,
      html`<h1>${title}</h1>${form}
<p><a id="back" href="${mountedPath(ctx, HOME_PATHS.home)}">${ui.t.t('account.home.back')}</a></p>`,
      ui,
    );
  });
}

/**
 * Mounts `POST /account/password` behind `change` (form parsing, CSRF, fresh sign-in). The attempt counts under
 * the login rate limits (429 with `Retry-After` when refused); a new password breaking the rule gets 400, a
 * wrong current password 401, both with the form again. On success the password is set, the account's login
 * counter cleared, every other session signed out with its tokens (this browser stays), and a notice mailed.
 */
export function passwordRoutes(
  router: Router,
  deps: PasswordSectionDeps,
  change: Middleware[],
  issueCsrf: (ctx: Context) => string,
): void {
  router.post(HOME_PATHS.password, ...change, async (ctx: Context) => {
    const { account, sessionId } = ctx.state.signedIn as SignedIn;
    const { t, locale } = uiOf(ctx);
    const body = formBody(ctx);
    const current = formField(body, 'current_password', MAX_PASSWORD_LENGTH);
    const next = typeof body.new_password === 'string' ? body.new_password : '';
    const limit = await deps.limits.loginAttempt(ctx.ip, account.email);
    if (!limit.allowed) {
      return renderTooManyRequests(ctx, limit.retryAfterSeconds, (nonce, ui) =>
        messagePage(nonce, ui.t.t('account.tooMany.title'), ui.t.t('account.tooMany'), { error: true, ui }),
      );
    }
    const weak = passwordProblem(next, deps.passwordMinLength);
    if (weak) return showProblem(ctx, deps, issueCsrf(ctx), 400, { field: 'new', text: problemText(ctx, weak) });
    const verified = current ? await deps.accounts.verifyPassword(account.email, current) : undefined;
    if (verified?.id !== account.id)
      return showProblem(ctx, deps, issueCsrf(ctx), 401, {
        field: 'current',
        text: t.t('account.changePassword.wrong'),
      });
    await deps.accounts.setPassword(account.id, next);
    await deps.linkTokens.revokeFor(account.id);
    await deps.limits.loginSucceeded(account.email);
    const ended = await deps.sessions.revokeOthers(account.id, sessionId);
    deps.logger.info({ accountId: account.id, ended }, 'account page: password changed; other sessions signed out');
    if (deps.mail.enabled) deps.mail.deliver(account.email, passwordChangedHereMail, locale);
    finished(
      ctx,
      t.t('account.changePassword.done.title'),
      t.t('account.changePassword.done'),
      t.t('account.home.back'),
    );
  });
}

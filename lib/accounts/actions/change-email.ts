import type { Context, Middleware } from 'koa';
import { formBody, formField, parseForm } from '../../http/pages.js';
import { MAX_EMAIL_LENGTH, MAX_PASSWORD_LENGTH } from '../input-rules.js';
import { ACCOUNT_PATHS } from '../paths.js';
import { changeEmail } from '../use-cases/change-email.js';
import {
  accountCsrf, emailField, mailSent, problemText, requireMail, showForm, tooMany, words, type AccountActionDeps,
} from './common.js';

function changeEmailForm(ctx: Context, deps: AccountActionDeps, status = 200, error?: string): void {
  const t = words(ctx);
  showForm(ctx, deps.csrf, status, {
    title: t.t('account.changeEmail.title'), action: ACCOUNT_PATHS.changeEmail, error,
    intro: t.t('account.changeEmail.intro'),
    fields: [
      emailField('email', t.t('account.changeEmail.current'), 'username'),
      { name: 'password', label: t.t('account.password'), type: 'password', autocomplete: 'current-password', maxLength: MAX_PASSWORD_LENGTH },
      emailField('new_email', t.t('account.changeEmail.new'), 'email'),
    ],
    submit: t.t('account.changeEmail.submit'),
  });
}

/**
 * `GET|POST /account/email`: changing the address re-authenticates with the password, and the new address must
 * be confirmed (use case: change-email.ts). 404 without mail.
 */
export function changeEmailActions(deps: AccountActionDeps): { show: Middleware[]; submit: Middleware[] } {
  return {
    show: [requireMail(deps.services), function showChangeEmailForm(ctx: Context) {
      changeEmailForm(ctx, deps);
    }],
    submit: [parseForm, requireMail(deps.services), accountCsrf(deps.csrf), async function startEmailChange(ctx: Context) {
      const body = formBody(ctx);
      const result = await changeEmail(deps.services, {
        ip: ctx.ip,
        email: formField(body, 'email', MAX_EMAIL_LENGTH).trim(),
        newEmail: formField(body, 'new_email', MAX_EMAIL_LENGTH).trim(),
        password: formField(body, 'password', MAX_PASSWORD_LENGTH),
        locale: words(ctx).locale,
      });
      switch (result.kind) {
        case 'invalid': return changeEmailForm(ctx, deps, 400, problemText(ctx, result.problem));
        case 'rate-limited': return tooMany(ctx, result.retryAfterSeconds);
        case 'wrong-credentials': return changeEmailForm(ctx, deps, 401, words(ctx).t('account.changeEmail.wrong'));
        case 'mail-sent': return mailSent(ctx);
      }
    }],
  };
}

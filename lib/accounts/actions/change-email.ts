import type { Context, Middleware } from 'koa';
import { formBody, formField, parseForm } from '../../http/pages.js';
import { MAX_EMAIL_LENGTH, MAX_PASSWORD_LENGTH } from '../input-rules.js';
import { ACCOUNT_PATHS } from '../paths.js';
import { changeEmail } from '../use-cases/change-email.js';
import {
  accountCsrf, emailField, MAIL_SENT_TEXT, message, requireMail, showForm, tooMany, type AccountActionDeps,
} from './common.js';

function changeEmailForm(ctx: Context, deps: AccountActionDeps, status = 200, error?: string): void {
  showForm(ctx, deps.csrf, status, {
    title: 'Change your e-mail address', action: ACCOUNT_PATHS.changeEmail, error,
    intro: 'The new address is used once you follow the link we mail to it. Changing it signs out every session.',
    fields: [
      emailField('email', 'Current e-mail', 'username'),
      { name: 'password', label: 'Password', type: 'password', autocomplete: 'current-password', maxLength: MAX_PASSWORD_LENGTH },
      emailField('new_email', 'New e-mail', 'email'),
    ],
    submit: 'Send confirmation link',
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
      });
      switch (result.kind) {
        case 'invalid': return changeEmailForm(ctx, deps, 400, result.message);
        case 'rate-limited': return tooMany(ctx, result.retryAfterSeconds);
        case 'wrong-credentials': return changeEmailForm(ctx, deps, 401, 'The e-mail address or password is incorrect.');
        case 'mail-sent': return message(ctx, 200, 'Check your e-mail', MAIL_SENT_TEXT);
      }
    }],
  };
}

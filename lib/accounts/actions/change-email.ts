import type { Context, Middleware } from 'koa';
import { formBody, formField, parseForm } from '../../http/pages.js';
import { MAX_EMAIL_LENGTH, MAX_PASSWORD_LENGTH } from '../input-rules.js';
import { ACCOUNT_PATHS } from '../paths.js';
import { changeEmail } from '../use-cases/change-email.js';
import {
  accountCsrf,
  emailField,
  mailSent,
  problemText,
  requireMail,
  showForm,
  tooMany,
  words,
  type AccountActionDeps,
} from './common.js';

function changeEmailForm(ctx: Context, deps: AccountActionDeps, status = 200, error?: string): void {
  const t = words(ctx);
  showForm(ctx, deps.csrf, status, {
    title: t.t('account.changeEmail.title'),
    action: ACCOUNT_PATHS.changeEmail,
    error,
    intro: t.t('account.changeEmail.intro'),
    fields: [
      emailField('email', t.t('account.changeEmail.current'), 'username'),
      {
        name: 'password',
        label: t.t('account.password'),
        type: 'password',
        autocomplete: 'current-password',
        maxLength: MAX_PASSWORD_LENGTH,
      },
      emailField('new_email', t.t('account.changeEmail.new'), 'email'),
      // Always shown when two-step verification exists, so the form says nothing about the account typed in.
      ...(deps.services.secondFactors
        ? [
            {
              name: 'code',
              label: t.t('account.changeEmail.code'),
              type: 'text' as const,
              autocomplete: 'one-time-code',
              required: false,
              maxLength: 64,
            },
          ]
        : []),
    ],
    submit: t.t('account.changeEmail.submit'),
  });
}

/**
 * `GET|POST /account/email`: changing the address re-authenticates with the password (and, for an account with
 * two-step verification, a TOTP or recovery code in the field `code`), and the new address must be confirmed
 * (use case: change-email.ts). 401 for a wrong password, a missing or wrong code; 403 for an account whose only
 * second factor is a passkey. 404 without mail.
 */
export function changeEmailActions(deps: AccountActionDeps): { show: Middleware[]; submit: Middleware[] } {
  return {
    show: [
      requireMail(deps.services),
      function showChangeEmailForm(ctx: Context) {
        changeEmailForm(ctx, deps);
      },
    ],
    submit: [
      parseForm,
      requireMail(deps.services),
      accountCsrf(deps.csrf),
      async function startEmailChange(ctx: Context) {
        const body = formBody(ctx);
        const result = await changeEmail(deps.services, {
          ip: ctx.ip,
          email: formField(body, 'email', MAX_EMAIL_LENGTH).trim(),
          newEmail: formField(body, 'new_email', MAX_EMAIL_LENGTH).trim(),
          password: formField(body, 'password', MAX_PASSWORD_LENGTH),
          code: formField(body, 'code', 64).trim(),
          locale: words(ctx).locale,
        });
        switch (result.kind) {
          case 'invalid':
            return changeEmailForm(ctx, deps, 400, problemText(ctx, result.problem));
          case 'rate-limited':
            return tooMany(ctx, result.retryAfterSeconds);
          case 'wrong-credentials':
            return changeEmailForm(ctx, deps, 401, words(ctx).t('account.changeEmail.wrong'));
          case 'code-required':
            return changeEmailForm(ctx, deps, 401, words(ctx).t('account.changeEmail.codeRequired'));
          case 'wrong-code':
            return changeEmailForm(ctx, deps, 401, words(ctx).t('mfa.wrongCode'));
          case 'passkey-only':
            return changeEmailForm(ctx, deps, 403, words(ctx).t('account.changeEmail.passkeyOnly'));
          case 'mail-sent':
            return mailSent(ctx);
        }
      },
    ],
  };
}

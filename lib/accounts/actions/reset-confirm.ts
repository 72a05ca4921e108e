import type { Context, Middleware } from 'koa';
import { formBody, formField, parseForm } from '../../http/pages.js';
import { ACCOUNT_PATHS } from '../paths.js';
import { resetLinkUsable, resetPassword } from '../use-cases/reset-password.js';
import {
  accountCsrf,
  invalidLink,
  message,
  newPasswordField,
  problemText,
  showForm,
  words,
  type AccountActionDeps,
} from './common.js';

const askAgain = (ctx: Context) => ({ href: ACCOUNT_PATHS.reset, text: words(ctx).t('account.reset.again') });

function newPasswordForm(ctx: Context, deps: AccountActionDeps, token: string, status = 200, error?: string): void {
  const t = words(ctx);
  showForm(ctx, deps.csrf, status, {
    title: t.t('account.newPassword.title'),
    action: ACCOUNT_PATHS.resetConfirm,
    error,
    hidden: { token },
    fields: [newPasswordField(t, 'password', t.t('account.newPassword.label'), deps.services.passwordMinLength)],
    submit: t.t('account.newPassword.submit'),
    intro: t.t('account.newPassword.intro'),
  });
}

/** `GET|POST /account/reset/confirm`: the new-password form behind a reset link, and setting it (reset-password.ts). */
export function resetConfirmActions(deps: AccountActionDeps): { show: Middleware[]; submit: Middleware[] } {
  return {
    show: [
      async function showNewPasswordForm(ctx: Context) {
        const token = typeof ctx.query.token === 'string' ? ctx.query.token : '';
        if (!(await resetLinkUsable(deps.services, token))) return invalidLink(ctx, 'reset', askAgain(ctx));
        newPasswordForm(ctx, deps, token);
      },
    ],
    submit: [
      parseForm,
      accountCsrf(deps.csrf),
      async function setNewPassword(ctx: Context) {
        const body = formBody(ctx);
        const token = formField(body, 'token', 64);
        const result = await resetPassword(
          deps.services,
          token,
          typeof body.password === 'string' ? body.password : '',
          words(ctx).locale,
        );
        const t = words(ctx);
        switch (result.kind) {
          case 'invalid-link':
            return invalidLink(ctx, 'reset', askAgain(ctx));
          case 'invalid':
            return newPasswordForm(ctx, deps, token, 400, problemText(ctx, result.problem));
          case 'password-changed':
            return message(
              ctx,
              200,
              t.t('account.newPassword.done.title'),
              t.t('account.newPassword.done'),
              result.returnTo ? [{ id: 'continue', href: result.returnTo, text: t.t('account.continueSignIn') }] : [],
            );
        }
      },
    ],
  };
}

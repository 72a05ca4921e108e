import type { Context, Middleware } from 'koa';
import { formBody, formField, parseForm } from '../../http/pages.js';
import { ACCOUNT_PATHS } from '../paths.js';
import { resetLinkUsable, resetPassword } from '../use-cases/reset-password.js';
import { accountCsrf, invalidLink, message, newPasswordField, showForm, type AccountActionDeps } from './common.js';

const askAgain = { href: ACCOUNT_PATHS.reset, text: 'Ask for a new link' };

function newPasswordForm(ctx: Context, deps: AccountActionDeps, token: string, status = 200, error?: string): void {
  showForm(ctx, deps.csrf, status, {
    title: 'Choose a new password', action: ACCOUNT_PATHS.resetConfirm, error,
    hidden: { token }, fields: [newPasswordField('password', 'New password', deps.services.passwordMinLength)], submit: 'Change password',
    intro: 'Signing in with the new password ends every other session of your account.',
  });
}

/** `GET|POST /account/reset/confirm`: the new-password form behind a reset link, and setting it (reset-password.ts). */
export function resetConfirmActions(deps: AccountActionDeps): { show: Middleware[]; submit: Middleware[] } {
  return {
    show: [async function showNewPasswordForm(ctx: Context) {
      const token = typeof ctx.query.token === 'string' ? ctx.query.token : '';
      if (!(await resetLinkUsable(deps.services, token))) return invalidLink(ctx, 'password reset', askAgain);
      newPasswordForm(ctx, deps, token);
    }],
    submit: [parseForm, accountCsrf(deps.csrf), async function setNewPassword(ctx: Context) {
      const body = formBody(ctx);
      const token = formField(body, 'token', 64);
      const result = await resetPassword(deps.services, token, typeof body.password === 'string' ? body.password : '');
      switch (result.kind) {
        case 'invalid-link': return invalidLink(ctx, 'password reset', askAgain);
        case 'invalid': return newPasswordForm(ctx, deps, token, 400, result.message);
        case 'password-changed': return message(ctx, 200, 'Password changed',
          'Your password is changed and every session of your account was signed out. You can now sign in with the new password.',
          result.returnTo ? [{ id: 'continue', href: result.returnTo, text: 'Continue signing in' }] : []);
      }
    }],
  };
}

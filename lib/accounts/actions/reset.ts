import type { Middleware } from 'koa';
import { ACCOUNT_PATHS } from '../paths.js';
import { requestPasswordReset } from '../use-cases/mail-requests.js';
import type { AccountActionDeps } from './common.js';
import { mailRequestActions } from './mail-request-form.js';

/** `GET|POST /account/reset`: asks for a password reset link (use case: mail-requests.ts). */
export function resetRequestActions(deps: AccountActionDeps): { show: Middleware[]; submit: Middleware[] } {
  return mailRequestActions(deps, {
    path: ACCOUNT_PATHS.reset,
    title: 'Reset your password',
    intro: 'Enter the address of your account; we will mail it a link to choose a new password.',
    submit: 'Send link',
  }, requestPasswordReset);
}

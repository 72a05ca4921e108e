import type { Middleware } from 'koa';
import { ACCOUNT_PATHS } from '../paths.js';
import { requestPasswordReset } from '../use-cases/mail-requests.js';
import type { AccountActionDeps } from './common.js';
import { mailRequestActions } from './mail-request-form.js';

/** `GET|POST /account/reset`: asks for a password reset link (use case: mail-requests.ts). */
export function resetRequestActions(deps: AccountActionDeps): { show: Middleware[]; submit: Middleware[] } {
  return mailRequestActions(
    deps,
    {
      path: ACCOUNT_PATHS.reset,
      title: 'account.reset.title',
      intro: 'account.reset.intro',
      submit: 'account.sendLink',
    },
    requestPasswordReset,
  );
}

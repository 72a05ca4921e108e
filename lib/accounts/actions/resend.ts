import type { Middleware } from 'koa';
import { ACCOUNT_PATHS } from '../paths.js';
import { resendConfirmation } from '../use-cases/mail-requests.js';
import type { AccountActionDeps } from './common.js';
import { mailRequestActions } from './mail-request-form.js';

/** `GET|POST /account/resend`: asks for a new confirmation link (use case: mail-requests.ts). */
export function resendActions(deps: AccountActionDeps): { show: Middleware[]; submit: Middleware[] } {
  return mailRequestActions(
    deps,
    {
      path: ACCOUNT_PATHS.resend,
      title: 'account.resend.title',
      intro: 'account.resend.intro',
      submit: 'account.sendLink',
    },
    resendConfirmation,
  );
}

import type { Context, Middleware } from 'koa';
import { formBody, formField, parseForm } from '../../http/pages.js';
import { ACCOUNT_PATHS } from '../paths.js';
import { confirmEmail, inspectConfirmation } from '../use-cases/confirm-email.js';
import { accountCsrf, invalidLink, message, showForm, words, type AccountActionDeps } from './common.js';

const askAgain = (ctx: Context) => ({ href: ACCOUNT_PATHS.resend, text: words(ctx).t('account.verify.again') });

/**
 * `GET|POST /account/verify`: a confirmation link (sign-up or e-mail change; use case: confirm-email.ts). The
 * GET only shows a Confirm button; the POST uses the link.
 */
export function verifyActions(deps: AccountActionDeps): { show: Middleware[]; submit: Middleware[] } {
  return {
    show: [
      async function showConfirmButton(ctx: Context) {
        const token = typeof ctx.query.token === 'string' ? ctx.query.token : '';
        const link = await inspectConfirmation(deps.services, token);
        if (link.kind === 'invalid-link') return invalidLink(ctx, 'confirmation', askAgain(ctx));
        const t = words(ctx);
        showForm(ctx, deps.csrf, 200, {
          title: t.t('account.verify.title'),
          intro: t.t('account.verify.intro', { email: link.email }),
          action: ACCOUNT_PATHS.verify,
          hidden: { token },
          fields: [],
          submit: t.t('account.verify.submit'),
        });
      },
    ],
    submit: [
      parseForm,
      accountCsrf(deps.csrf),
      async function useConfirmationLink(ctx: Context) {
        const result = await confirmEmail(deps.services, formField(formBody(ctx), 'token', 64));
        const t = words(ctx);
        switch (result.kind) {
          case 'invalid-link':
            return invalidLink(ctx, 'confirmation', askAgain(ctx));
          case 'address-taken':
            return message(ctx, 409, t.t('account.verify.taken.title'), t.t('account.verify.taken'));
          case 'email-changed':
            return message(
              ctx,
              200,
              t.t('account.verify.changed.title'),
              t.t('account.verify.changed', { email: result.email }),
            );
          case 'verified':
            return message(
              ctx,
              200,
              t.t('account.verify.done.title'),
              t.t('account.verify.done'),
              result.returnTo ? [{ id: 'continue', href: result.returnTo, text: t.t('account.continueSignIn') }] : [],
            );
        }
      },
    ],
  };
}

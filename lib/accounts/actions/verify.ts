import type { Context, Middleware } from 'koa';
import { formBody, formField, parseForm } from '../../http/pages.js';
import { ACCOUNT_PATHS } from '../paths.js';
import { confirmEmail, inspectConfirmation } from '../use-cases/confirm-email.js';
import { accountCsrf, invalidLink, message, showForm, type AccountActionDeps } from './common.js';

const askAgain = { href: ACCOUNT_PATHS.resend, text: 'Send a new confirmation link' };

/**
 * `GET|POST /account/verify`: a confirmation link (sign-up or e-mail change; use case: confirm-email.ts). The
 * GET only shows a Confirm button; the POST uses the link.
 */
export function verifyActions(deps: AccountActionDeps): { show: Middleware[]; submit: Middleware[] } {
  return {
    show: [async function showConfirmButton(ctx: Context) {
      const token = typeof ctx.query.token === 'string' ? ctx.query.token : '';
      const link = await inspectConfirmation(deps.services, token);
      if (link.kind === 'invalid-link') return invalidLink(ctx, 'confirmation', askAgain);
      showForm(ctx, deps.csrf, 200, {
        title: 'Confirm your e-mail address', intro: `Confirm ${link.email} as the address of your account.`,
        action: ACCOUNT_PATHS.verify, hidden: { token }, fields: [], submit: 'Confirm',
      });
    }],
    submit: [parseForm, accountCsrf(deps.csrf), async function useConfirmationLink(ctx: Context) {
      const result = await confirmEmail(deps.services, formField(formBody(ctx), 'token', 64));
      switch (result.kind) {
        case 'invalid-link': return invalidLink(ctx, 'confirmation', askAgain);
        case 'address-taken':
          return message(ctx, 409, 'Address not changed', 'This address now belongs to another account; your address was not changed.');
        case 'email-changed': return message(ctx, 200, 'E-mail address changed', `Your account now uses ${result.email}. Please sign in again.`);
        case 'verified': return message(ctx, 200, 'E-mail address confirmed', 'Your e-mail address is confirmed. You can now sign in.',
          result.returnTo ? [{ id: 'continue', href: result.returnTo, text: 'Continue signing in' }] : []);
      }
    }],
  };
}

import type { Context, Middleware } from 'koa';
import { formBody, formField, parseForm } from '../../http/pages.js';
import { MAX_EMAIL_LENGTH } from '../input-rules.js';
import type { MailRequestInput, MailRequestResult } from '../use-cases/mail-requests.js';
import type { AccountServices } from '../use-cases/services.js';
import {
  accountCsrf,
  emailField,
  interactionField,
  interactionOf,
  mailSent,
  problemText,
  requireMail,
  showForm,
  tooMany,
  words,
  type AccountActionDeps,
} from './common.js';

/** The words of one "mail me a link" page, as message keys. */
export interface MailRequestCopy {
  path: string;
  title: 'account.resend.title' | 'account.reset.title';
  intro: 'account.resend.intro' | 'account.reset.intro';
  submit: 'account.sendLink';
}

/**
 * The actions of a "mail me a link" page (resend confirmation, password reset): a form with one address field,
 * and its submission to `useCase`. Both answer 404 without mail.
 */
export function mailRequestActions(
  deps: AccountActionDeps,
  copy: MailRequestCopy,
  useCase: (services: AccountServices, input: MailRequestInput) => Promise<MailRequestResult>,
): { show: Middleware[]; submit: Middleware[] } {
  function emailForm(ctx: Context, status = 200, error?: string): void {
    const t = words(ctx);
    showForm(ctx, deps.csrf, status, {
      title: t.t(copy.title),
      intro: t.t(copy.intro),
      action: copy.path,
      error,
      submit: t.t(copy.submit),
      hidden: interactionField(interactionOf(ctx)),
      fields: [emailField('email', t.t('account.email'), 'email')],
    });
  }
  return {
    show: [
      requireMail(deps.services),
      function showEmailForm(ctx: Context) {
        emailForm(ctx);
      },
    ],
    submit: [
      parseForm,
      requireMail(deps.services),
      accountCsrf(deps.csrf),
      async function requestMail(ctx: Context) {
        const body = formBody(ctx);
        const result = await useCase(deps.services, {
          ip: ctx.ip,
          email: formField(body, 'email', MAX_EMAIL_LENGTH).trim(),
          interaction: body.interaction,
          locale: words(ctx).locale,
        });
        switch (result.kind) {
          case 'invalid':
            return emailForm(ctx, 400, problemText(ctx, result.problem));
          case 'rate-limited':
            return tooMany(ctx, result.retryAfterSeconds);
          case 'mail-sent':
            return mailSent(ctx);
        }
      },
    ],
  };
}

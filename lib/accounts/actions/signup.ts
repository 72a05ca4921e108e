import type { Context, Middleware, Next } from 'koa';
import { formBody, formField, parseForm } from '../../http/pages.js';
import { MAX_EMAIL_LENGTH } from '../input-rules.js';
import { ACCOUNT_PATHS, returnToFor } from '../paths.js';
import { signUp } from '../use-cases/sign-up.js';
import {
  accountCsrf,
  emailField,
  interactionField,
  mailSent,
  newPasswordField,
  notFound,
  problemText,
  showForm,
  tooMany,
  words,
  type AccountActionDeps,
} from './common.js';

interface SignupValues {
  given_name?: string;
  family_name?: string;
  email?: string;
  interaction?: string;
}

function signupForm(
  ctx: Context,
  deps: AccountActionDeps,
  status = 200,
  error?: string,
  values: SignupValues = {},
): void {
  const uid = values.interaction ?? (typeof ctx.query.interaction === 'string' ? ctx.query.interaction : '');
  const back = returnToFor(uid);
  const t = words(ctx);
  showForm(ctx, deps.csrf, status, {
    title: t.t('account.signup.title'),
    action: ACCOUNT_PATHS.signup,
    error,
    intro: t.t('account.signup.intro'),
    hidden: interactionField(uid),
    fields: [
      {
        name: 'given_name',
        label: t.t('account.signup.givenName'),
        type: 'text',
        value: values.given_name,
        autocomplete: 'given-name',
        maxLength: 100,
      },
      {
        name: 'family_name',
        label: t.t('account.signup.familyName'),
        type: 'text',
        value: values.family_name,
        autocomplete: 'family-name',
        maxLength: 100,
      },
      // `username` (not `email`): password managers save the new password under this address.
      emailField('email', t.t('account.email'), 'username', values.email),
      newPasswordField(t, 'password', t.t('account.password'), deps.services.passwordMinLength),
    ],
    submit: t.t('account.signup.submit'),
    links: back ? [{ id: 'back', href: back, text: t.t('account.signup.haveAccount') }] : [],
  });
}

/**
 * `GET|POST /account/signup`: the sign-up form, and creating an unverified account (use case: sign-up.ts).
 * 404 when sign-up is off or there is no mail.
 */
export function signupActions(deps: AccountActionDeps): { show: Middleware[]; submit: Middleware[] } {
  async function requireSignup(ctx: Context, next: Next) {
    if (!deps.signupOn) return notFound(ctx);
    await next();
  }
  return {
    show: [
      requireSignup,
      function showSignupForm(ctx: Context) {
        signupForm(ctx, deps);
      },
    ],
    submit: [
      parseForm,
      requireSignup,
      accountCsrf(deps.csrf),
      async function createAccount(ctx: Context) {
        const body = formBody(ctx);
        const values = {
          given_name: formField(body, 'given_name', 100).trim(),
          family_name: formField(body, 'family_name', 100).trim(),
          email: formField(body, 'email', MAX_EMAIL_LENGTH).trim(),
          interaction: formField(body, 'interaction', 64),
        };
        const password = typeof body.password === 'string' ? body.password : '';
        const result = await signUp(deps.services, {
          ip: ctx.ip,
          givenName: values.given_name,
          familyName: values.family_name,
          email: values.email,
          password,
          interaction: values.interaction,
          locale: words(ctx).locale,
        });
        switch (result.kind) {
          case 'invalid':
            return signupForm(ctx, deps, 400, problemText(ctx, result.problem), values);
          case 'rate-limited':
            return tooMany(ctx, result.retryAfterSeconds);
          case 'mail-sent':
            return mailSent(
              ctx,
              result.returnTo
                ? [{ id: 'continue', href: result.returnTo, text: words(ctx).t('account.backToSignIn') }]
                : [],
            );
        }
      },
    ],
  };
}

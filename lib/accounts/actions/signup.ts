import type { Context, Middleware, Next } from 'koa';
import { formBody, formField, parseForm } from '../../http/pages.js';
import { MAX_EMAIL_LENGTH } from '../input-rules.js';
import { ACCOUNT_PATHS, returnToFor } from '../paths.js';
import { signUp } from '../use-cases/sign-up.js';
import {
  accountCsrf, emailField, interactionField, MAIL_SENT_TEXT, message, newPasswordField, notFound, showForm, tooMany,
  type AccountActionDeps,
} from './common.js';

interface SignupValues { given_name?: string; family_name?: string; email?: string; interaction?: string }

function signupForm(ctx: Context, deps: AccountActionDeps, status = 200, error?: string, values: SignupValues = {}): void {
  const uid = values.interaction ?? (typeof ctx.query.interaction === 'string' ? ctx.query.interaction : '');
  const back = returnToFor(uid);
  showForm(ctx, deps.csrf, status, {
    title: 'Create an account', action: ACCOUNT_PATHS.signup, error,
    intro: 'We will send you a link to confirm your e-mail address.',
    hidden: interactionField(uid),
    fields: [
      { name: 'given_name', label: 'Given name', type: 'text', value: values.given_name, autocomplete: 'given-name', maxLength: 100 },
      { name: 'family_name', label: 'Family name', type: 'text', value: values.family_name, autocomplete: 'family-name', maxLength: 100 },
      emailField('email', 'E-mail', 'email', values.email),
      newPasswordField('password', 'Password', deps.services.passwordMinLength),
    ],
    submit: 'Create account',
    links: back ? [{ id: 'back', href: back, text: 'I already have an account' }] : [],
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
    show: [requireSignup, function showSignupForm(ctx: Context) {
      signupForm(ctx, deps);
    }],
    submit: [parseForm, requireSignup, accountCsrf(deps.csrf), async function createAccount(ctx: Context) {
      const body = formBody(ctx);
      const values = {
        given_name: formField(body, 'given_name', 100).trim(),
        family_name: formField(body, 'family_name', 100).trim(),
        email: formField(body, 'email', MAX_EMAIL_LENGTH).trim(),
        interaction: formField(body, 'interaction', 64),
      };
      const password = typeof body.password === 'string' ? body.password : '';
      const result = await signUp(deps.services, {
        ip: ctx.ip, givenName: values.given_name, familyName: values.family_name, email: values.email, password, interaction: values.interaction,
      });
      switch (result.kind) {
        case 'invalid': return signupForm(ctx, deps, 400, result.message, values);
        case 'rate-limited': return tooMany(ctx, result.retryAfterSeconds);
        case 'mail-sent': return message(ctx, 200, 'Check your e-mail', MAIL_SENT_TEXT,
          result.returnTo ? [{ id: 'continue', href: result.returnTo, text: 'Back to sign in' }] : []);
      }
    }],
  };
}

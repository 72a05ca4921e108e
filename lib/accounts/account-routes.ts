import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import type { Context, Middleware } from 'koa';
import type { ResolvedConfig } from '../config/types.js';
import { CsrfGuard } from '../http/csrf.js';
import { setPageSecurityHeaders } from '../http/security-headers.js';
import type { Logger } from '../logger.js';
import type { Account, AccountStore } from './account-store.js';
import type { AccountLimits } from './account-limits.js';
import type { AccountSessions } from './account-sessions.js';
import type { Mailer, MailMessage } from './mailer.js';
import type { TokenPurpose, TokenRecord, VerificationTokens } from './verification-tokens.js';
import { formPage, messagePage, type Field } from './views.js';

/** Paths of the account pages. */
export const ACCOUNT_PATHS = Object.freeze({
  signup: '/account/signup',
  verify: '/account/verify',
  resend: '/account/resend',
  reset: '/account/reset',
  resetConfirm: '/account/reset/confirm',
  changeEmail: '/account/email',
});

/** Longest accepted password in characters; longer input is refused, never truncated. */
export const MAX_PASSWORD_LENGTH = 256;
const EMAIL = /^[^\s@<>()",;:\\]+@[^\s@<>()",;:\\]+\.[^\s@<>()",;:\\]+$/;
const INTERACTION_UID = /^[\w-]{1,64}$/;
const CSRF_SCOPE = '/account';
const SENT = 'If the address can receive mail from us, a message is on its way. Follow the link in it to continue. The link works once and expires.';

/** What {@link accountFlows} needs; built once by `createServer`. */
export interface AccountFlowDeps {
  config: ResolvedConfig;
  accounts: AccountStore;
  tokens: VerificationTokens;
  mailer: Mailer | undefined;
  limits: AccountLimits;
  sessions: AccountSessions;
  csrfSecret: string;
  logger: Logger;
}

/** What the login page needs from the account flows. */
export interface AccountFlows {
  /** Koa middleware serving `/account/*`. */
  routes: Middleware;
  /** Link to the sign-up page for a pending login, or undefined when sign-up is off. */
  signupUrl(interactionUid?: string): string | undefined;
  /** Link to the password reset page, or undefined without mail. */
  resetUrl(interactionUid?: string): string | undefined;
  /** Mails a new verification link to an unverified account (rate-limited per address and IP). */
  resendVerification(ctx: Context, account: Account, interactionUid?: string): Promise<void>;
}

function field(body: Record<string, unknown>, name: string, max: number): string {
  const value = body[name];
  return typeof value === 'string' && value.length <= max ? value : '';
}

function returnToFor(uid: unknown): string | undefined {
  return typeof uid === 'string' && INTERACTION_UID.test(uid) ? `/interaction/${uid}` : undefined;
}

function withInteraction(path: string, uid?: string): string {
  return uid && INTERACTION_UID.test(uid) ? `${path}?interaction=${encodeURIComponent(uid)}` : path;
}

/**
 * Sign-up, e-mail verification, resend, password reset and e-mail change pages (SPEC rule 9: "verify account
 * details such as e-mail address at user registration"). Every form has a CSRF token; every answer that could
 * reveal whether an address has an account is the same either way, and the mail tells the owner instead.
 */
export function accountFlows(deps: AccountFlowDeps): AccountFlows {
  const { config, accounts, tokens, mailer, limits, sessions, logger } = deps;
  const { selfService } = config;
  const csrf = new CsrfGuard(deps.csrfSecret);
  const router = new Router();
  const form = bodyParser({ enableTypes: ['form'], formLimit: '16kb' });
  const signupOn = Boolean(selfService.signup && mailer);

  function render(ctx: Context, status: number, page: (nonce: string) => string): void {
    const nonce = setPageSecurityHeaders(ctx);
    ctx.status = status;
    ctx.type = 'html';
    ctx.body = page(nonce);
  }

  function message(ctx: Context, status: number, title: string, text: string, links?: Array<{ id: string; href: string; text: string }>): void {
    render(ctx, status, (nonce) => messagePage(nonce, title, text, { error: status >= 400, links }));
  }

  function tooMany(ctx: Context, retryAfterSeconds: number): void {
    ctx.set('Retry-After', String(retryAfterSeconds));
    message(ctx, 429, 'Too many attempts', 'Too many attempts. Please try again later.');
  }

  function link(path: string, token: string): string {
    return new URL(`${path}?token=${token}`, config.issuer).href;
  }

  /** Sends in the background: how long SMTP takes must not tell an attacker whether a mail was sent. */
  function deliver(m: MailMessage): void {
    mailer!.send(m).catch((err: unknown) => logger.error({ err, to: m.to, subject: m.subject }, 'account mail could not be sent'));
  }

  async function mailToken(purpose: TokenPurpose, record: Omit<TokenRecord, 'purpose'>, build: (url: string) => Omit<MailMessage, 'to' | 'link'>): Promise<void> {
    const ttl = purpose === 'reset-password' ? selfService.resetTtl : selfService.verificationTtl;
    const token = await tokens.issue({ ...record, purpose }, ttl);
    const url = link(purpose === 'reset-password' ? ACCOUNT_PATHS.resetConfirm : ACCOUNT_PATHS.verify, token);
    deliver({ to: record.email, link: url, ...build(url) });
  }

  const hours = (s: number) => (s % 3600 === 0 ? `${s / 3600} hour${s === 3600 ? '' : 's'}` : `${Math.ceil(s / 60)} minutes`);

  function verificationMail(account: Account, returnTo?: string): Promise<void> {
    return mailToken('verify-email', { accountId: account.id, email: account.email, returnTo }, (url) => ({
      subject: 'Confirm your e-mail address',
      text: `Hello,\n\nplease confirm that this is your e-mail address by opening this link:\n\n${url}\n\nThe link works once and expires in ${hours(selfService.verificationTtl)}. If you did not create an account, ignore this message.\n`,
    }));
  }

  function checkCsrf(ctx: Context): boolean {
    const body = ctx.request.body as Record<string, unknown> | undefined;
    if (csrf.verify(ctx, CSRF_SCOPE, body?.csrf)) return true;
    message(ctx, 403, 'Request refused', 'The form was not submitted from this page (missing or wrong CSRF token). Reload the page and try again.');
    return false;
  }

  function passwordProblem(password: string): string | undefined {
    if ([...password].length < selfService.passwordMinLength) return `Choose a password of at least ${selfService.passwordMinLength} characters.`;
    if ([...password].length > MAX_PASSWORD_LENGTH) return `Choose a password of at most ${MAX_PASSWORD_LENGTH} characters.`;
    return undefined;
  }

  const passwordField = (name: string, label: string): Field => ({ name, label, type: 'password', autocomplete: 'new-password', minLength: selfService.passwordMinLength, maxLength: MAX_PASSWORD_LENGTH });

  function notFound(ctx: Context): void {
    message(ctx, 404, 'Not available', 'This page is not available on this server.');
  }

  // ---- sign-up ----
  function showSignup(ctx: Context, status = 200, error?: string, values: Record<string, string> = {}) {
    const uid = values.interaction ?? (typeof ctx.query.interaction === 'string' ? ctx.query.interaction : '');
    render(ctx, status, (nonce) => formPage({
      nonce, title: 'Create an account', action: ACCOUNT_PATHS.signup, csrfToken: csrf.issue(ctx, CSRF_SCOPE), error,
      intro: 'We will send you a link to confirm your e-mail address.',
      hidden: INTERACTION_UID.test(uid) ? { interaction: uid } : {},
      fields: [
        { name: 'given_name', label: 'Given name', type: 'text', value: values.given_name, autocomplete: 'given-name', maxLength: 100 },
        { name: 'family_name', label: 'Family name', type: 'text', value: values.family_name, autocomplete: 'family-name', maxLength: 100 },
        { name: 'email', label: 'E-mail', type: 'email', value: values.email, autocomplete: 'email', maxLength: 254 },
        passwordField('password', 'Password'),
      ],
      submit: 'Create account',
      links: returnToFor(uid) ? [{ id: 'back', href: returnToFor(uid)!, text: 'I already have an account' }] : [],
    }));
  }

  router.get(ACCOUNT_PATHS.signup, (ctx) => (signupOn ? showSignup(ctx) : notFound(ctx)));

  router.post(ACCOUNT_PATHS.signup, form, async (ctx) => {
    if (!signupOn) return notFound(ctx);
    if (!checkCsrf(ctx)) return;
    const body = ctx.request.body as Record<string, unknown>;
    const values = {
      given_name: field(body, 'given_name', 100).trim(),
      family_name: field(body, 'family_name', 100).trim(),
      email: field(body, 'email', 254).trim(),
      interaction: field(body, 'interaction', 64),
    };
    const password = typeof body.password === 'string' ? body.password : '';
    if (!values.given_name || !values.family_name) return showSignup(ctx, 400, 'Enter your given and family name.', values);
    if (!EMAIL.test(values.email)) return showSignup(ctx, 400, 'Enter a valid e-mail address.', values);
    const weak = passwordProblem(password);
    if (weak) return showSignup(ctx, 400, weak, values);
    const limit = await limits.mailRequest(ctx.ip, values.email);
    if (!limit.allowed) return tooMany(ctx, limit.retryAfterSeconds);

    const returnTo = returnToFor(values.interaction);
    const created = await accounts.create({
      email: values.email, password,
      claims: { given_name: values.given_name, family_name: values.family_name, name: `${values.given_name} ${values.family_name}` },
    });
    if (created) {
      logger.info({ accountId: created.id }, 'account created (e-mail not verified yet)');
      await verificationMail(created, returnTo);
    } else {
      // The address is taken: tell its owner, not the visitor (no account enumeration).
      const existing = await accounts.findByEmail(values.email);
      if (existing && !existing.emailVerified) {
        // Pre-account hijacking: whoever signed up first chose the password, maybe not the owner of the address.
        // The owner gets a link to set their own password (which also confirms the address), never a link that
        // would confirm the earlier sign-up's password.
        await mailToken('reset-password', { accountId: existing.id, email: existing.email, returnTo }, (url) => ({
          subject: 'Finish setting up your account',
          text: `Hello,\n\nsomeone (maybe you) tried to create an account with this address, which already has an account waiting for confirmation. To use it, choose your password here:\n\n${url}\n\nThe link works once and expires in ${hours(selfService.resetTtl)}. If this was not you, ignore this message.\n`,
        }));
      } else if (existing) {
        deliver({
          to: existing.email, subject: 'Someone tried to create an account with your address',
          text: `Hello,\n\nsomeone tried to create a new account with this e-mail address, which already has one. If it was you, sign in, or reset your password here:\n\n${new URL(ACCOUNT_PATHS.reset, config.issuer).href}\n\nIf it was not you, you can ignore this message.\n`,
        });
      }
    }
    message(ctx, 200, 'Check your e-mail', SENT, returnTo ? [{ id: 'continue', href: returnTo, text: 'Back to sign in' }] : []);
  });

  // ---- verification (sign-up and e-mail change) ----
  const expired = (ctx: Context, what: string, again: { href: string; text: string }) =>
    message(ctx, 400, 'Link not valid', `This ${what} link is invalid, has expired or was already used.`, [{ id: 'again', ...again }]);

  router.get(ACCOUNT_PATHS.verify, async (ctx) => {
    const token = typeof ctx.query.token === 'string' ? ctx.query.token : '';
    // A GET only shows a button: mail scanners that prefetch links must not use them up.
    const record = (await tokens.peek(token, 'verify-email')) ?? (await tokens.peek(token, 'change-email'));
    if (!record) return expired(ctx, 'confirmation', { href: ACCOUNT_PATHS.resend, text: 'Send a new confirmation link' });
    render(ctx, 200, (nonce) => formPage({
      nonce, title: 'Confirm your e-mail address', intro: `Confirm ${record.email} as the address of your account.`,
      action: ACCOUNT_PATHS.verify, csrfToken: csrf.issue(ctx, CSRF_SCOPE), hidden: { token }, fields: [], submit: 'Confirm',
    }));
  });

  router.post(ACCOUNT_PATHS.verify, form, async (ctx) => {
    if (!checkCsrf(ctx)) return;
    const token = field(ctx.request.body as Record<string, unknown>, 'token', 64);
    const record = (await tokens.consume(token, 'verify-email')) ?? (await tokens.consume(token, 'change-email'));
    const account = record && (await accounts.findById(record.accountId));
    if (!record || !account) return expired(ctx, 'confirmation', { href: ACCOUNT_PATHS.resend, text: 'Send a new confirmation link' });
    if (record.purpose === 'change-email') {
      if (!(await accounts.setEmail(account.id, record.email))) {
        return message(ctx, 409, 'Address not changed', 'This address now belongs to another account; your address was not changed.');
      }
      // The old address no longer signs in: sessions and tokens issued under it end.
      await sessions.revokeAll(account.id);
      logger.info({ accountId: account.id }, 'e-mail address changed; sessions and grants revoked');
      return message(ctx, 200, 'E-mail address changed', `Your account now uses ${record.email}. Please sign in again.`);
    }
    if (account.email.toLowerCase() !== record.email.toLowerCase()) {
      return expired(ctx, 'confirmation', { href: ACCOUNT_PATHS.resend, text: 'Send a new confirmation link' });
    }
    await accounts.markEmailVerified(account.id);
    logger.info({ accountId: account.id }, 'e-mail address verified');
    message(ctx, 200, 'E-mail address confirmed', 'Your e-mail address is confirmed. You can now sign in.',
      record.returnTo ? [{ id: 'continue', href: record.returnTo, text: 'Continue signing in' }] : []);
  });

  // ---- resend ----
  function showEmailForm(ctx: Context, path: string, title: string, intro: string, submit: string, status = 200, error?: string) {
    const uid = typeof ctx.query.interaction === 'string' ? ctx.query.interaction : field((ctx.request.body ?? {}) as Record<string, unknown>, 'interaction', 64);
    render(ctx, status, (nonce) => formPage({
      nonce, title, intro, action: path, csrfToken: csrf.issue(ctx, CSRF_SCOPE), error, submit,
      hidden: INTERACTION_UID.test(uid) ? { interaction: uid } : {},
      fields: [{ name: 'email', label: 'E-mail', type: 'email', autocomplete: 'email', maxLength: 254 }],
    }));
  }

  /**
   * The shared front of the "mail me a link" forms (resend, reset): mail configured, CSRF, a valid address, the
   * mail limit. Answers the request itself and returns `undefined` when any of them fails.
   */
  async function emailRequest(ctx: Context, path: string, copy: readonly [string, string, string]) {
    if (!mailer) return notFound(ctx);
    if (!checkCsrf(ctx)) return undefined;
    const body = ctx.request.body as Record<string, unknown>;
    const email = field(body, 'email', 254).trim();
    if (!EMAIL.test(email)) return showEmailForm(ctx, path, ...copy, 400, 'Enter a valid e-mail address.');
    const limit = await limits.mailRequest(ctx.ip, email);
    if (!limit.allowed) return tooMany(ctx, limit.retryAfterSeconds);
    return { body, email };
  }

  const RESEND = ['Send a new confirmation link', 'Enter the address of your account; we will mail it a new confirmation link.', 'Send link'] as const;
  router.get(ACCOUNT_PATHS.resend, (ctx) => (mailer ? showEmailForm(ctx, ACCOUNT_PATHS.resend, ...RESEND) : notFound(ctx)));
  router.post(ACCOUNT_PATHS.resend, form, async (ctx) => {
    const request = await emailRequest(ctx, ACCOUNT_PATHS.resend, RESEND);
    if (!request) return;
    const { body, email } = request;
    const account = await accounts.findByEmail(email);
    if (account && !account.emailVerified) await verificationMail(account, returnToFor(body.interaction));
    message(ctx, 200, 'Check your e-mail', SENT);
  });

  // ---- password reset ----
  const RESET = ['Reset your password', 'Enter the address of your account; we will mail it a link to choose a new password.', 'Send link'] as const;
  router.get(ACCOUNT_PATHS.reset, (ctx) => (mailer ? showEmailForm(ctx, ACCOUNT_PATHS.reset, ...RESET) : notFound(ctx)));
  router.post(ACCOUNT_PATHS.reset, form, async (ctx) => {
    const request = await emailRequest(ctx, ACCOUNT_PATHS.reset, RESET);
    if (!request) return;
    const { body, email } = request;
    const account = await accounts.findByEmail(email);
    if (account) {
      await mailToken('reset-password', { accountId: account.id, email: account.email, returnTo: returnToFor(body.interaction) }, (url) => ({
        subject: 'Reset your password',
        text: `Hello,\n\nsomeone (hopefully you) asked to reset the password of your account. Choose a new password here:\n\n${url}\n\nThe link works once and expires in ${hours(selfService.resetTtl)}. If you did not ask for this, ignore this message; your password stays as it is.\n`,
      }));
    }
    message(ctx, 200, 'Check your e-mail', SENT);
  });

  function showNewPassword(ctx: Context, token: string, status = 200, error?: string) {
    render(ctx, status, (nonce) => formPage({
      nonce, title: 'Choose a new password', action: ACCOUNT_PATHS.resetConfirm, csrfToken: csrf.issue(ctx, CSRF_SCOPE), error,
      hidden: { token }, fields: [passwordField('password', 'New password')], submit: 'Change password',
      intro: 'Signing in with the new password ends every other session of your account.',
    }));
  }
  const resetAgain = { href: ACCOUNT_PATHS.reset, text: 'Ask for a new link' };

  router.get(ACCOUNT_PATHS.resetConfirm, async (ctx) => {
    const token = typeof ctx.query.token === 'string' ? ctx.query.token : '';
    if (!(await tokens.peek(token, 'reset-password'))) return expired(ctx, 'password reset', resetAgain);
    showNewPassword(ctx, token);
  });

  router.post(ACCOUNT_PATHS.resetConfirm, form, async (ctx) => {
    if (!checkCsrf(ctx)) return;
    const body = ctx.request.body as Record<string, unknown>;
    const token = field(body, 'token', 64);
    const password = typeof body.password === 'string' ? body.password : '';
    if (!(await tokens.peek(token, 'reset-password'))) return expired(ctx, 'password reset', resetAgain);
    const weak = passwordProblem(password);
    if (weak) return showNewPassword(ctx, token, 400, weak);
    const record = await tokens.consume(token, 'reset-password');
    const account = record && (await accounts.findById(record.accountId));
    if (!record || !account) return expired(ctx, 'password reset', resetAgain);
    await accounts.setPassword(account.id, password);
    // The link reached the address, which proves it as much as a confirmation link does.
    if (!account.emailVerified && account.email.toLowerCase() === record.email.toLowerCase()) await accounts.markEmailVerified(account.id);
    const revoked = await sessions.revokeAll(account.id);
    await limits.loginSucceeded(account.email);
    logger.info({ accountId: account.id, ...revoked }, 'password reset; sessions and grants revoked');
    deliver({ to: account.email, subject: 'Your password was changed', text: 'Hello,\n\nthe password of your account was just changed and every session was signed out. If this was not you, reset your password now and contact the administrator.\n' });
    message(ctx, 200, 'Password changed', 'Your password is changed and every session of your account was signed out. You can now sign in with the new password.',
      record.returnTo ? [{ id: 'continue', href: record.returnTo, text: 'Continue signing in' }] : []);
  });

  // ---- e-mail change (re-authenticates with the password; the new address must be confirmed) ----
  function showChangeEmail(ctx: Context, status = 200, error?: string) {
    render(ctx, status, (nonce) => formPage({
      nonce, title: 'Change your e-mail address', action: ACCOUNT_PATHS.changeEmail, csrfToken: csrf.issue(ctx, CSRF_SCOPE), error,
      intro: 'The new address is used once you follow the link we mail to it. Changing it signs out every session.',
      fields: [
        { name: 'email', label: 'Current e-mail', type: 'email', autocomplete: 'username', maxLength: 254 },
        { name: 'password', label: 'Password', type: 'password', autocomplete: 'current-password', maxLength: MAX_PASSWORD_LENGTH },
        { name: 'new_email', label: 'New e-mail', type: 'email', autocomplete: 'email', maxLength: 254 },
      ],
      submit: 'Send confirmation link',
    }));
  }
  router.get(ACCOUNT_PATHS.changeEmail, (ctx) => (mailer ? showChangeEmail(ctx) : notFound(ctx)));
  router.post(ACCOUNT_PATHS.changeEmail, form, async (ctx) => {
    if (!mailer) return notFound(ctx);
    if (!checkCsrf(ctx)) return;
    const body = ctx.request.body as Record<string, unknown>;
    const email = field(body, 'email', 254).trim();
    const newEmail = field(body, 'new_email', 254).trim();
    const password = field(body, 'password', MAX_PASSWORD_LENGTH);
    if (!EMAIL.test(newEmail)) return showChangeEmail(ctx, 400, 'Enter a valid new e-mail address.');
    const attempt = await limits.loginAttempt(ctx.ip, email);
    if (!attempt.allowed) return tooMany(ctx, attempt.retryAfterSeconds);
    const account = email && password ? await accounts.verifyPassword(email, password) : undefined;
    if (!account) return showChangeEmail(ctx, 401, 'The e-mail address or password is incorrect.');
    await limits.loginSucceeded(email);
    const mailLimit = await limits.mailRequest(ctx.ip, newEmail);
    if (!mailLimit.allowed) return tooMany(ctx, mailLimit.retryAfterSeconds);
    const holder = await accounts.findByEmail(newEmail);
    if (holder && holder.id !== account.id) {
      deliver({ to: holder.email, subject: 'Someone tried to use your address', text: 'Hello,\n\nsomeone tried to move another account to this e-mail address, which already has an account. Nothing was changed.\n' });
    } else if (!holder) {
      await mailToken('change-email', { accountId: account.id, email: newEmail }, (url) => ({
        subject: 'Confirm your new e-mail address',
        text: `Hello,\n\nconfirm this as the new address of your account by opening this link:\n\n${url}\n\nThe link works once and expires in ${hours(selfService.verificationTtl)}.\n`,
      }));
      deliver({ to: account.email, subject: 'Your e-mail address is being changed', text: `Hello,\n\nsomeone signed in with your password and asked to move your account to another address. If this was not you, reset your password now: ${new URL(ACCOUNT_PATHS.reset, config.issuer).href}\n` });
    }
    message(ctx, 200, 'Check your e-mail', SENT);
  });

  return {
    routes: router.routes() as unknown as Middleware,
    signupUrl: (uid) => (signupOn ? withInteraction(ACCOUNT_PATHS.signup, uid) : undefined),
    resetUrl: (uid) => (mailer ? withInteraction(ACCOUNT_PATHS.reset, uid) : undefined),
    async resendVerification(ctx, account, uid) {
      if (!mailer) return;
      const limit = await limits.mailRequest(ctx.ip, account.email);
      if (limit.allowed) await verificationMail(account, returnToFor(uid));
    },
  };
}

import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { ResolvedConfig } from '../../config/types.js';
import type { CsrfGuard } from '../http/csrf.js';
import type { Logger } from '../core/logger.js';
import type { Account, AccountStore } from '../core/account-store.js';
import type { AccountLimits } from './account-limits.js';
import { AccountMail } from './account-mail.js';
import type { AccountSessions } from './account-sessions.js';
import { keepOpenerForWebMessageSignIn, type AccountActionDeps } from './actions/common.js';
import { changeEmailActions } from './actions/change-email.js';
import { resetConfirmActions } from './actions/reset-confirm.js';
import { resetRequestActions } from './actions/reset.js';
import { resendActions } from './actions/resend.js';
import { signupActions } from './actions/signup.js';
import { verifyActions } from './actions/verify.js';
import type { Mailer } from '../core/mailer.js';
import { ACCOUNT_PATHS, withInteraction } from './paths.js';
import { resendConfirmationAtLogin } from './use-cases/mail-requests.js';
import type { AccountServices } from './use-cases/services.js';
import type { VerificationTokens } from './verification-tokens.js';
import { uiOf, type UiSettings } from '../ui/ui.js';

/** What {@link accountFlows} needs; built once by `createServer`. */
export interface AccountFlowDeps {
  config: ResolvedConfig;
  accounts: AccountStore;
  tokens: VerificationTokens;
  mailer: Mailer | undefined;
  limits: AccountLimits;
  sessions: AccountSessions;
  /** The pages' CSRF guard (cookie under the issuer's path on plain http). */
  csrf: CsrfGuard;
  logger: Logger;
  /** Languages and branding of the pages and mails (`ui`, resolved). */
  ui?: UiSettings;
  /** The second factors the e-mail change asks for, as the login counts them (absent with `mfa.enabled: false`). */
  secondFactors?: AccountServices['secondFactors'];
  /** TOTP and passkeys, which a reset confirming an unconfirmed address removes (absent: none can exist). */
  signInMethods?: AccountServices['signInMethods'];
  /** The `response_mode` of a pending sign-in by its interaction uid (undefined when none is pending). */
  responseModeOf?: (interactionUid: string) => Promise<unknown>;
}

/** What the login page needs from the account flows. */
export interface AccountFlows {
  /** Koa middleware serving `/account/*`. */
  routes: Middleware;
  /** Link to the sign-up page for a pending login, or undefined when sign-up is off. */
  signupUrl(interactionUid?: string): string | undefined;
  /** Link to the password reset page, or undefined without mail. */
  resetUrl(interactionUid?: string): string | undefined;
  /** The account mail sender (notices of factor changes use it too). */
  mail: AccountMail;
  /** Mails a new verification link to an unverified account (rate-limited per address and IP). */
  resendVerification(ctx: Context, account: Account, interactionUid?: string): Promise<void>;
}

/**
 * Sign-up, e-mail verification, resend, password reset and e-mail change pages (SPEC rule 9: "verify account
 * details such as e-mail address at user registration"). Every form has a CSRF token; every answer that could
 * reveal whether an address has an account is the same either way, and the mail tells the owner instead.
 *
 * The use cases (no Koa) are in `use-cases/`, one HTTP action file per page in `actions/`, the mails in
 * `mail-templates.ts`; this function builds them and mounts each page's GET and POST.
 */
export function accountFlows(deps: AccountFlowDeps): AccountFlows {
  const { config, accounts, tokens, mailer, limits, sessions, logger, ui } = deps;
  const { selfService } = config;
  const mail = new AccountMail({
    mailer,
    tokens,
    issuer: config.issuer,
    verificationTtl: selfService.verificationTtl,
    resetTtl: selfService.resetTtl,
    logger,
    ui,
  });
  const services: AccountServices = {
    accounts,
    tokens,
    mail,
    limits,
    sessions,
    logger,
    passwordMinLength: selfService.passwordMinLength,
    secondFactors: deps.secondFactors,
    signInMethods: deps.signInMethods,
  };
  const signupOn = Boolean(selfService.signup && mailer);
  const actionDeps: AccountActionDeps = { services, csrf: deps.csrf, signupOn };

  const router = new Router();
  const pages: Array<[string, { show: Middleware[]; submit: Middleware[] }]> = [
    [ACCOUNT_PATHS.signup, signupActions(actionDeps)],
    [ACCOUNT_PATHS.verify, verifyActions(actionDeps)],
    [ACCOUNT_PATHS.resend, resendActions(actionDeps)],
    [ACCOUNT_PATHS.reset, resetRequestActions(actionDeps)],
    [ACCOUNT_PATHS.resetConfirm, resetConfirmActions(actionDeps)],
    [ACCOUNT_PATHS.changeEmail, changeEmailActions(actionDeps)],
  ];
  const keepOpener = keepOpenerForWebMessageSignIn(deps.responseModeOf);
  for (const [path, actions] of pages) {
    router.get(path, keepOpener, ...actions.show);
    router.post(path, keepOpener, ...actions.submit);
  }

  return {
    routes: router.routes() as unknown as Middleware,
    signupUrl: (uid) => (signupOn ? withInteraction(ACCOUNT_PATHS.signup, uid) : undefined),
    resetUrl: (uid) => (mailer ? withInteraction(ACCOUNT_PATHS.reset, uid) : undefined),
    mail,
    resendVerification: (ctx, account, uid) =>
      resendConfirmationAtLogin(services, ctx.ip, account, uid, uiOf(ctx).locale),
  };
}

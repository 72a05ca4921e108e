import { Translator } from '../../ui/i18n.js';
import type { LimitResult } from '../../core/limiter.js';
import type { Logger } from '../../core/logger.js';
import type { AccountLimits } from '../account-limits.js';
import type { AccountMail } from '../account-mail.js';
import type { AccountSessions } from '../account-sessions.js';
import type { AccountStore, StoredPasskey } from '../../core/account-store.js';
import type { VerificationTokens } from '../verification-tokens.js';
import type { SecondFactorService } from '../mfa/second-factor-service.js';

/**
 * What the account use cases work with; built once by `accountFlows`. The use cases know nothing of Koa: they
 * take plain input (already cut to the field limits by the HTTP actions) and return a result union that the
 * actions in `lib/accounts/actions/` turn into pages.
 */
export interface AccountServices {
  accounts: AccountStore;
  tokens: VerificationTokens;
  mail: AccountMail;
  limits: AccountLimits;
  sessions: AccountSessions;
  logger: Logger;
  /** `selfService.passwordMinLength`, in characters. */
  passwordMinLength: number;
  /**
   * The account's second factors as the login's MFA policy counts them: TOTP and recovery codes (`mfa.enabled`),
   * and `passkeys` only with `passkeys.secondFactor`. Absent: passwords only (the e-mail change asks for nothing more).
   */
  secondFactors?: { factors: Pick<SecondFactorService, 'status' | 'check'>; passkeys?: Pick<PasskeyList, 'list'> };
  /**
   * Every sign-in method an account can hold besides its password: TOTP with recovery codes (`mfa.enabled`) and
   * passkeys (`passkeys.enabled`, whether or not they count as a second factor). A password reset that confirms an
   * unconfirmed address removes them (reset-password.ts). Absent parts: nothing of that kind to remove.
   */
  signInMethods?: { factors?: Pick<SecondFactorService, 'status' | 'remove'>; passkeys?: PasskeyList };
}

/**
 * An account's passkeys as the e-mail change and the password reset use them (`PasskeyService` of the passkeys
 * feature).
 */
export interface PasskeyList {
  list(accountId: string): Promise<readonly StoredPasskey[]>;
  /** Whether it was there. */
  remove(accountId: string, credentialId: string): Promise<boolean>;
}

/** What to fix in a form, as a message key and its values (shown in the visitor's language). */
export type InputProblem =
  | { key: 'account.invalid.names' | 'account.invalid.email' | 'account.invalid.newEmail' }
  | { key: 'account.invalid.passwordShort'; params: { min: number } }
  | { key: 'account.invalid.passwordLong'; params: { max: number } };

/**
 * The input was refused; `problem` says what to fix and is shown with the form (status 400), `message` is it in
 * English (for logs and callers without a page).
 */
export interface Invalid {
  kind: 'invalid';
  message: string;
  problem: InputProblem;
}

/** A rate limit refused the request; answer 429 with `Retry-After: retryAfterSeconds`. */
export interface RateLimited {
  kind: 'rate-limited';
  retryAfterSeconds: number;
}

/** The link is unknown, expired, used, for another purpose, or its account is gone. */
export interface InvalidLink {
  kind: 'invalid-link';
}

/**
 * Done, and a mail may have gone out. Deliberately the same whether or not an account has the address (no
 * account enumeration): the mail tells the owner instead.
 */
export interface MailSent {
  kind: 'mail-sent';
  returnTo?: string;
}

export const invalid = (problem: InputProblem): Invalid => ({
  kind: 'invalid',
  problem,
  message: ENGLISH.t(
    problem.key as 'account.invalid.passwordShort',
    ('params' in problem ? problem.params : {}) as { min: number },
  ),
});
const ENGLISH = new Translator('en');

/** A refused limit as a {@link RateLimited} result, or `undefined` when the limit allows the request. */
export function rateLimited(limit: LimitResult): RateLimited | undefined {
  return limit.allowed ? undefined : { kind: 'rate-limited', retryAfterSeconds: limit.retryAfterSeconds };
}

import type { Locale } from '../../ui/i18n.js';
import { parseEmailAddress } from '../../core/email-address.js';
import { addressChangingMail, addressInUseMail, confirmNewAddressMail } from '../mail-templates.js';
import { ACCOUNT_PATHS } from '../paths.js';
import {
  invalid,
  rateLimited,
  type AccountServices,
  type Invalid,
  type MailSent,
  type RateLimited,
} from './services.js';

/**
 * The e-mail change form: the current address and password re-authenticate (plus `code` for an account with
 * two-step verification); the new address gets a link.
 */
export interface ChangeEmailInput {
  /** Client IP (`ctx.ip`), for the login, second-factor and mail rate limits. */
  ip: string;
  email: string;
  password: string;
  newEmail: string;
  /** A TOTP or recovery code; needed when the account has TOTP, ignored otherwise. */
  code?: string;
  /** Language of the mails. @default `ui.defaultLocale` */
  locale?: Locale;
}

export type ChangeEmailResult =
  | Invalid
  | RateLimited
  /** The current address or the password is wrong (the same answer for both, status 401). */
  | { kind: 'wrong-credentials' }
  /**
   * Right password, but the account has two-step verification and no code came (`code-required`), the code is
   * wrong or used (`wrong-code`), or its only second factor is a passkey, which this form cannot check
   * (`passkey-only`). Said only after the right password, as the login page's second step is.
   */
  | { kind: 'code-required' | 'wrong-code' | 'passkey-only' }
  | MailSent;

type SecondFactorRefusal =
  | Extract<ChangeEmailResult, { kind: 'code-required' | 'wrong-code' | 'passkey-only' }>
  | RateLimited;

/**
 * The second factor of an account that signs in with two (the login's rule: TOTP, or a passkey with
 * `passkeys.secondFactor`), checked like the login's second step; `undefined` when it passed or there is none.
 */
async function secondFactorRefusal(
  services: AccountServices,
  accountId: string,
  code: string,
  ip: string,
): Promise<SecondFactorRefusal | undefined> {
  const mfa = services.secondFactors;
  if (!mfa) return undefined;
  const [{ totp }, passkeys] = await Promise.all([
    mfa.factors.status(accountId),
    mfa.passkeys ? mfa.passkeys.list(accountId) : [],
  ]);
  if (!totp) return passkeys.length > 0 ? { kind: 'passkey-only' } : undefined;
  if (!code) return { kind: 'code-required' };
  const result = await mfa.factors.check(accountId, code, ip);
  if (result.kind === 'ok') return undefined;
  return result.kind === 'wrong' ? { kind: 'wrong-code' } : result;
}

/**
 * Starts an e-mail change: re-authenticates under the login limit (for an account with two-step verification also
 * with a TOTP or recovery code, under the second-factor limits; an account whose only second factor is a passkey
 * is refused), then (under the mail limit) mails the new address a confirmation link and the current address a
 * notice. The change happens only when the link is used (confirm-email.ts). When another account holds the new
 * address, its holder is told and nothing changes; the visitor gets the same answer either way.
 */
export async function changeEmail(services: AccountServices, input: ChangeEmailInput): Promise<ChangeEmailResult> {
  const { accounts, limits, mail } = services;
  const { ip, email, password } = input;
  const newAddress = parseEmailAddress(input.newEmail);
  if (!newAddress) return invalid({ key: 'account.invalid.newEmail' });
  const attempt = rateLimited(await limits.loginAttempt(ip, email));
  if (attempt) return attempt;
  const account = email && password ? await accounts.verifyPassword(email, password) : undefined;
  if (!account) return { kind: 'wrong-credentials' };
  await limits.loginSucceeded(email);
  // The verified address is the account's recovery channel and what clients trust: the password alone must not
  // move it away from an account that needs two factors to sign in.
  const factor = await secondFactorRefusal(services, account.id, input.code ?? '', ip);
  if (factor) return factor;
  const refused = rateLimited(await limits.mailRequest(ip, newAddress.key));
  if (refused) return refused;
  const holder = await accounts.findByEmail(newAddress.address);
  if (holder && holder.id !== account.id) {
    mail.deliver(holder.email, addressInUseMail, input.locale);
  } else if (!holder) {
    await mail.sendLink(
      'change-email',
      { accountId: account.id, email: newAddress.address },
      confirmNewAddressMail,
      input.locale,
    );
    mail.deliver(
      account.email,
      (w) => addressChangingMail(w, { resetPageUrl: mail.pageUrl(ACCOUNT_PATHS.reset) }),
      input.locale,
    );
  }
  return { kind: 'mail-sent' };
}

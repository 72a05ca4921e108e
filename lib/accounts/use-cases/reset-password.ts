import type { Locale } from '../../ui/i18n.js';
import { sameEmailAddress } from '../../core/email-address.js';
import { resetConfirmsAddress } from '../hijacking-policy.js';
import { passwordProblem } from '../input-rules.js';
import { passwordChangedMail } from '../mail-templates.js';
import { invalid, type AccountServices, type Invalid, type InvalidLink } from './services.js';

export type ResetPasswordResult =
  | InvalidLink
  | Invalid
  /** The password is changed and every session ended; `returnTo` is the pending login, if any. */
  | { kind: 'password-changed'; returnTo?: string };

/** Whether a reset link can still be used (to show the new-password form; the link is not used up). */
export async function resetLinkUsable({ tokens }: AccountServices, token: string): Promise<boolean> {
  return (await tokens.peek(token, 'reset-password')) !== undefined;
}

/**
 * Removes the TOTP (with its recovery codes) and the passkeys of an account whose address was never confirmed: they
 * were set up by whoever signed up with the address (with `selfService.requireVerifiedEmail: false` an unconfirmed
 * account signs in and reaches `/account`), who need not be its owner, and a passkey signs in without the password
 * (pre-account hijacking, see hijacking-policy.ts). Returns what was removed, for the log.
 */
async function removeUnprovenMethods(
  { signInMethods }: AccountServices,
  accountId: string,
): Promise<{ totp: boolean; passkeys: number }> {
  const totp = Boolean(signInMethods?.factors && (await signInMethods.factors.status(accountId)).totp);
  if (totp) await signInMethods!.factors!.remove(accountId);
  const passkeys = signInMethods?.passkeys ? await signInMethods.passkeys.list(accountId) : [];
  for (const passkey of passkeys) await signInMethods!.passkeys!.remove(accountId, passkey.credentialId);
  return { totp, passkeys: passkeys.length };
}

/**
 * Sets a new password with a reset link. The link is used up only once the password is acceptable. Then the
 * account's other reset links and pending e-mail changes end, every session and grant of the account is revoked,
 * the login limit of the account is cleared, the address counts as
 * confirmed (hijacking-policy.ts; an address confirmed only now also loses the TOTP and passkeys set up before, see
 * {@link removeUnprovenMethods}) and the owner gets a notice (in `locale`).
 */
export async function resetPassword(
  services: AccountServices,
  token: string,
  password: string,
  locale?: Locale,
): Promise<ResetPasswordResult> {
  const { tokens, accounts, sessions, limits, logger, mail } = services;
  if (!(await tokens.peek(token, 'reset-password'))) return { kind: 'invalid-link' };
  const weak = passwordProblem(password, services.passwordMinLength);
  if (weak) return invalid(weak);
  const record = await tokens.consume(token, 'reset-password');
  const account = record && (await accounts.findById(record.accountId));
  // A link mailed to an address the account no longer has is not the owner's.
  if (!record || !account || !sameEmailAddress(account.email, record.email)) return { kind: 'invalid-link' };
  await accounts.setPassword(account.id, password);
  // Every other reset link and any pending e-mail change end with it (one asked for with a stolen password).
  await tokens.revokeFor(account.id);
  if (resetConfirmsAddress(account, record)) {
    const removed = await removeUnprovenMethods(services, account.id);
    if (removed.totp || removed.passkeys)
      logger.info(
        { accountId: account.id, ...removed },
        'password reset confirmed the address: sign-in methods set up before it removed',
      );
    await accounts.markEmailVerified(account.id);
  }
  const revoked = await sessions.revokeAll(account.id);
  await limits.loginSucceeded(account.email);
  logger.info({ accountId: account.id, ...revoked }, 'password reset; sessions and grants revoked');
  mail.deliver(account.email, passwordChangedMail, locale);
  return { kind: 'password-changed', returnTo: record.returnTo };
}

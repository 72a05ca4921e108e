import { sameEmailAddress } from '../../core/email-address.js';
import type { AccountServices, InvalidLink } from './services.js';

/** A confirmation link that can be used, and the address it confirms. */
export interface ConfirmableLink {
  kind: 'confirmable';
  email: string;
}

export type ConfirmEmailResult =
  | InvalidLink
  /** An e-mail change: the address now belongs to another account, nothing changed (409). */
  | { kind: 'address-taken' }
  /** An e-mail change is done; every session and grant of the account was revoked. */
  | { kind: 'email-changed'; email: string }
  /** The sign-up address is confirmed; `returnTo` is the pending login, if any. */
  | { kind: 'verified'; returnTo?: string };

/**
 * Looks a confirmation link (sign-up or e-mail change) up without using it: a GET only shows a button, so mail
 * scanners that prefetch links do not use them up.
 */
export async function inspectConfirmation(
  { tokens }: AccountServices,
  token: string,
): Promise<ConfirmableLink | InvalidLink> {
  const record = (await tokens.peek(token, 'verify-email')) ?? (await tokens.peek(token, 'change-email'));
  return record ? { kind: 'confirmable', email: record.email } : { kind: 'invalid-link' };
}

/**
 * Uses a confirmation link once. A sign-up link marks the address verified, unless the account has since
 * changed its address. An e-mail change link moves the account to the new address and ends every session and
 * grant issued under the old one.
 */
export async function confirmEmail(services: AccountServices, token: string): Promise<ConfirmEmailResult> {
  const { tokens, accounts, sessions, logger } = services;
  const record = (await tokens.consume(token, 'verify-email')) ?? (await tokens.consume(token, 'change-email'));
  const account = record && (await accounts.findById(record.accountId));
  if (!record || !account) return { kind: 'invalid-link' };
  if (record.purpose === 'change-email') {
    if (!(await accounts.setEmail(account.id, record.email))) return { kind: 'address-taken' };
    // The old address no longer signs in: sessions, tokens and reset links issued under it end.
    await tokens.revokeFor(account.id);
    await sessions.revokeAll(account.id);
    logger.info({ accountId: account.id }, 'e-mail address changed; sessions and grants revoked');
    return { kind: 'email-changed', email: record.email };
  }
  if (!sameEmailAddress(account.email, record.email)) return { kind: 'invalid-link' };
  await accounts.markEmailVerified(account.id);
  logger.info({ accountId: account.id }, 'e-mail address verified');
  return { kind: 'verified', returnTo: record.returnTo };
}

import type { Account } from '../core/account-store.js';
import { sameEmailAddress } from '../core/email-address.js';
import type { TokenRecord } from './verification-tokens.js';

/**
 * The pre-account-hijacking policy (Sudhodanan & Paverd, "Pre-hijacked accounts", USENIX Security 2022): whoever
 * signs up first with an address chose the password, and that may not be the owner of the address. So the
 * owner's mail never confirms an earlier sign-up's password; it lets the owner choose their own.
 */

/** What to mail when a sign-up names an address that already has an account. */
export type TakenAddressMail =
  /** The account is unconfirmed: mail its owner a link to set their own password (which also confirms it). */
  | { kind: 'finish-setup'; account: Account }
  /** The account is confirmed: tell its owner someone tried, and point to the reset page. */
  | { kind: 'notify-owner'; account: Account }
  /** No account found (it went away meanwhile): nothing to mail. */
  | { kind: 'none' };

/** Decides the mail for a sign-up whose address is taken by `existing`. The visitor is told the same either way. */
export function mailForTakenAddress(existing: Account | undefined): TakenAddressMail {
  if (!existing) return { kind: 'none' };
  return existing.emailVerified
    ? { kind: 'notify-owner', account: existing }
    : { kind: 'finish-setup', account: existing };
}

/**
 * Whether a used password reset link confirms the account's address: it reached the address, which proves it as
 * much as a confirmation link does, as long as the account still has the address the link was sent to.
 */
export function resetConfirmsAddress(account: Account, record: TokenRecord): boolean {
  return !account.emailVerified && sameEmailAddress(account.email, record.email);
}

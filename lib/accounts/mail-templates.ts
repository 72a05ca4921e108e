/**
 * The account mails, one function each. Every message is `text/plain` (see {@link MailMessage}): nothing is
 * interpreted as markup, so nothing needs HTML escaping; the only values put in are links we build from the
 * issuer and a random token, and durations. No message says whether the reader has an account beyond what the
 * reader's own address already tells them (no account enumeration).
 */
import type { MailMessage } from '../core/mailer.js';

/** Subject and body of one account mail. */
export type MailContent = Pick<MailMessage, 'subject' | 'text'>;

/** A mail carrying a single-use link. */
export interface LinkMail {
  /** The full https link (issuer + account page + `?token=`). */
  url: string;
  /** How long the link works, in seconds. */
  ttlSeconds: number;
}

/** `3600` → "1 hour", `7200` → "2 hours", `900` → "15 minutes" (rounded up to whole minutes). */
export function describeDuration(seconds: number): string {
  return seconds % 3600 === 0 ? `${seconds / 3600} hour${seconds === 3600 ? '' : 's'}` : `${Math.ceil(seconds / 60)} minutes`;
}

/** After sign-up (and on resend): confirm the address. */
export function confirmAddressMail({ url, ttlSeconds }: LinkMail): MailContent {
  return {
    subject: 'Confirm your e-mail address',
    text: `Hello,\n\nplease confirm that this is your e-mail address by opening this link:\n\n${url}\n\nThe link works once and expires in ${describeDuration(ttlSeconds)}. If you did not create an account, ignore this message.\n`,
  };
}

/**
 * A sign-up for an address whose account is still unconfirmed: the owner chooses their own password (the
 * pre-account-hijacking policy, account-policy.ts).
 */
export function finishSetupMail({ url, ttlSeconds }: LinkMail): MailContent {
  return {
    subject: 'Finish setting up your account',
    text: `Hello,\n\nsomeone (maybe you) tried to create an account with this address, which already has an account waiting for confirmation. To use it, choose your password here:\n\n${url}\n\nThe link works once and expires in ${describeDuration(ttlSeconds)}. If this was not you, ignore this message.\n`,
  };
}

/** A sign-up for an address with a confirmed account: tell the owner, offer the reset page. */
export function signupAddressTakenMail({ resetPageUrl }: { resetPageUrl: string }): MailContent {
  return {
    subject: 'Someone tried to create an account with your address',
    text: `Hello,\n\nsomeone tried to create a new account with this e-mail address, which already has one. If it was you, sign in, or reset your password here:\n\n${resetPageUrl}\n\nIf it was not you, you can ignore this message.\n`,
  };
}

/** The password reset link. */
export function resetPasswordMail({ url, ttlSeconds }: LinkMail): MailContent {
  return {
    subject: 'Reset your password',
    text: `Hello,\n\nsomeone (hopefully you) asked to reset the password of your account. Choose a new password here:\n\n${url}\n\nThe link works once and expires in ${describeDuration(ttlSeconds)}. If you did not ask for this, ignore this message; your password stays as it is.\n`,
  };
}

/** Notice after a password reset. */
export function passwordChangedMail(): MailContent {
  return {
    subject: 'Your password was changed',
    text: 'Hello,\n\nthe password of your account was just changed and every session was signed out. If this was not you, reset your password now and contact the administrator.\n',
  };
}

/** To the holder of an address another account tried to move to. */
export function addressInUseMail(): MailContent {
  return {
    subject: 'Someone tried to use your address',
    text: 'Hello,\n\nsomeone tried to move another account to this e-mail address, which already has an account. Nothing was changed.\n',
  };
}

/** To the new address of an e-mail change: confirm it. */
export function confirmNewAddressMail({ url, ttlSeconds }: LinkMail): MailContent {
  return {
    subject: 'Confirm your new e-mail address',
    text: `Hello,\n\nconfirm this as the new address of your account by opening this link:\n\n${url}\n\nThe link works once and expires in ${describeDuration(ttlSeconds)}.\n`,
  };
}

/** To the current address of an e-mail change: the change was asked for, and how to stop it. */
export function addressChangingMail({ resetPageUrl }: { resetPageUrl: string }): MailContent {
  return {
    subject: 'Your e-mail address is being changed',
    text: `Hello,\n\nsomeone signed in with your password and asked to move your account to another address. If this was not you, reset your password now: ${resetPageUrl}\n`,
  };
}

/** Which second factor changed, in words for the notice mails. */
export type FactorName = 'an authenticator app (TOTP)' | 'new recovery codes' | 'a passkey';

/** Notice after a second factor was added; other sessions were signed out. */
export function secondFactorAddedMail({ factor }: { factor: FactorName }): MailContent {
  return {
    subject: 'A sign-in method was added to your account',
    text: `Hello,\n\n${factor} was just added to your account for two-step verification, and your other sessions were signed out. If this was not you, reset your password now and contact the administrator.\n`,
  };
}

/** Notice after a second factor was removed; other sessions were signed out. */
export function secondFactorRemovedMail({ factor }: { factor: FactorName }): MailContent {
  return {
    subject: 'A sign-in method was removed from your account',
    text: `Hello,\n\n${factor} was just removed from your account, and your other sessions were signed out. If this was not you, reset your password now and contact the administrator.\n`,
  };
}

import type { Locale } from '../../ui/i18n.js';
import type { Account } from '../../core/account-store.js';
import { parseEmailAddress, type EmailAddress } from '../../core/email-address.js';
import { resetPasswordMail } from '../mail-templates.js';
import { returnToFor } from '../paths.js';
import {
  invalid,
  rateLimited,
  type AccountServices,
  type Invalid,
  type MailSent,
  type RateLimited,
} from './services.js';

/** A "mail me a link" form (resend confirmation, password reset). */
export interface MailRequestInput {
  /** Client IP (`ctx.ip`), for the mail rate limit. */
  ip: string;
  /** The address typed in, trimmed. */
  email: string;
  /** The pending login's interaction uid, if the visitor came from a login page. */
  interaction?: unknown;
  /** Language of the mail. @default `ui.defaultLocale` */
  locale?: Locale;
}

export type MailRequestResult = Invalid | RateLimited | MailSent;

/**
 * The shared front of the "mail me a link" requests: a valid address (its forms), then the mail limit per IP and
 * address (keyed by the canonical form, so another spelling of the address counts against the same limit).
 */
async function admit(
  { limits }: AccountServices,
  input: MailRequestInput,
): Promise<Invalid | RateLimited | EmailAddress> {
  const address = parseEmailAddress(input.email);
  if (!address) return invalid({ key: 'account.invalid.email' });
  return rateLimited(await limits.mailRequest(input.ip, address.key)) ?? address;
}

/** Mails a new confirmation link when the address has an unconfirmed account; answers the same in every case. */
export async function resendConfirmation(
  services: AccountServices,
  input: MailRequestInput,
): Promise<MailRequestResult> {
  const admitted = await admit(services, input);
  if ('kind' in admitted) return admitted;
  const account = await services.accounts.findByEmail(admitted.address);
  if (account && !account.emailVerified)
    await services.mail.sendVerification(account, returnToFor(input.interaction), input.locale);
  return { kind: 'mail-sent' };
}

/**
 * Mails a password reset link when the address has an account; answers the same in every case. The link goes to
 * the account's own address, never to the spelling typed here.
 */
export async function requestPasswordReset(
  services: AccountServices,
  input: MailRequestInput,
): Promise<MailRequestResult> {
  const admitted = await admit(services, input);
  if ('kind' in admitted) return admitted;
  const account = await services.accounts.findByEmail(admitted.address);
  if (account) {
    await services.mail.sendLink(
      'reset-password',
      { accountId: account.id, email: account.email, returnTo: returnToFor(input.interaction) },
      resetPasswordMail,
      input.locale,
    );
  }
  return { kind: 'mail-sent' };
}

/**
 * After a right password for an unconfirmed account (login with `selfService.requireVerifiedEmail`): mails a new
 * confirmation link, within the mail limit per IP and address; silently nothing without mail or over the limit.
 */
export async function resendConfirmationAtLogin(
  services: AccountServices,
  ip: string,
  account: Account,
  interactionUid?: string,
  locale?: Locale,
): Promise<void> {
  if (!services.mail.enabled) return;
  const limit = await services.limits.mailRequest(ip, account.email);
  if (limit.allowed) await services.mail.sendVerification(account, returnToFor(interactionUid), locale);
}

import type { Locale } from '../../ui/i18n.js';
import { isEmailAddress } from '../input-rules.js';
import { addressChangingMail, addressInUseMail, confirmNewAddressMail } from '../mail-templates.js';
import { ACCOUNT_PATHS } from '../paths.js';
import { invalid, rateLimited, type AccountServices, type Invalid, type MailSent, type RateLimited } from './services.js';

/** The e-mail change form: the current address and password re-authenticate; the new address gets a link. */
export interface ChangeEmailInput {
  /** Client IP (`ctx.ip`), for the login and mail rate limits. */
  ip: string;
  email: string;
  password: string;
  newEmail: string;
  /** Language of the mails. @default `ui.defaultLocale` */
  locale?: Locale;
}

export type ChangeEmailResult =
  | Invalid
  | RateLimited
  /** The current address or the password is wrong (the same answer for both, status 401). */
  | { kind: 'wrong-credentials' }
  | MailSent;

/**
 * Starts an e-mail change: re-authenticates under the login limit, then (under the mail limit) mails the new
 * address a confirmation link and the current address a notice. The change happens only when the link is used
 * (confirm-email.ts). When another account holds the new address, its holder is told and nothing changes; the
 * visitor gets the same answer either way.
 */
export async function changeEmail(services: AccountServices, input: ChangeEmailInput): Promise<ChangeEmailResult> {
  const { accounts, limits, mail } = services;
  const { ip, email, password, newEmail } = input;
  if (!isEmailAddress(newEmail)) return invalid({ key: 'account.invalid.newEmail' });
  const attempt = rateLimited(await limits.loginAttempt(ip, email));
  if (attempt) return attempt;
  const account = email && password ? await accounts.verifyPassword(email, password) : undefined;
  if (!account) return { kind: 'wrong-credentials' };
  await limits.loginSucceeded(email);
  const refused = rateLimited(await limits.mailRequest(ip, newEmail));
  if (refused) return refused;
  const holder = await accounts.findByEmail(newEmail);
  if (holder && holder.id !== account.id) {
    mail.deliver(holder.email, addressInUseMail, input.locale);
  } else if (!holder) {
    await mail.sendLink('change-email', { accountId: account.id, email: newEmail }, confirmNewAddressMail, input.locale);
    mail.deliver(account.email, (w) => addressChangingMail(w, { resetPageUrl: mail.pageUrl(ACCOUNT_PATHS.reset) }), input.locale);
  }
  return { kind: 'mail-sent' };
}

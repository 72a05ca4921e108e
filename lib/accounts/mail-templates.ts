/**
 * The account mails, one function each, in the language of the request that caused them (see `lib/ui/i18n.ts`).
 * Every message is `text/plain` (see {@link MailMessage}): nothing is interpreted as markup, so nothing needs
 * HTML escaping; the only values put in are links we build from the issuer and a random token, durations and
 * `ui.productName`. No message says whether the reader has an account beyond what the reader's own address
 * already tells them (no account enumeration).
 */
import type { Translator } from '../ui/i18n.js';
import type { MailMessage } from '../core/mailer.js';

/** Subject and body of one account mail. */
export type MailContent = Pick<MailMessage, 'subject' | 'text'>;

/** The words a mail is written with: the reader's language and the operator's name. */
export interface MailWords {
  t: Translator;
  /** `ui.productName`, in the signature. */
  product: string;
}

/** A mail carrying a single-use link. */
export interface LinkMail {
  /** The full https link (issuer + account page + `?token=`). */
  url: string;
  /** How long the link works, in seconds. */
  ttlSeconds: number;
}

/** A mail template: its content in the reader's words. */
export type MailTemplate = (words: MailWords) => MailContent;

function letter({ t, product }: MailWords, subject: string, ...paragraphs: string[]): MailContent {
  return {
    subject,
    text: `${t.t('mail.greeting')}\n\n${paragraphs.join('\n\n')}\n\n${t.t('mail.signature', { product })}\n`,
  };
}

function expiry(t: Translator, ttlSeconds: number): string {
  return t.t('mail.expires', { duration: t.duration(ttlSeconds) });
}

/** After sign-up (and on resend): confirm the address. */
export function confirmAddressMail(w: MailWords, { url, ttlSeconds }: LinkMail): MailContent {
  const { t } = w;
  return letter(
    w,
    t.t('mail.confirm.subject'),
    t.t('mail.confirm.body'),
    url,
    `${expiry(t, ttlSeconds)} ${t.t('mail.confirm.ignore')}`,
  );
}

/**
 * A sign-up for an address whose account is still unconfirmed: the owner chooses their own password (the
 * pre-account-hijacking policy, account-policy.ts).
 */
export function finishSetupMail(w: MailWords, { url, ttlSeconds }: LinkMail): MailContent {
  const { t } = w;
  return letter(
    w,
    t.t('mail.finish.subject'),
    t.t('mail.finish.body'),
    url,
    `${expiry(t, ttlSeconds)} ${t.t('mail.finish.ignore')}`,
  );
}

/** A sign-up for an address with a confirmed account: tell the owner, offer the reset page. */
export function signupAddressTakenMail(w: MailWords, { resetPageUrl }: { resetPageUrl: string }): MailContent {
  const { t } = w;
  return letter(w, t.t('mail.taken.subject'), t.t('mail.taken.body'), resetPageUrl, t.t('mail.taken.ignore'));
}

/** The password reset link. */
export function resetPasswordMail(w: MailWords, { url, ttlSeconds }: LinkMail): MailContent {
  const { t } = w;
  return letter(
    w,
    t.t('mail.reset.subject'),
    t.t('mail.reset.body'),
    url,
    `${expiry(t, ttlSeconds)} ${t.t('mail.reset.ignore')}`,
  );
}

/** Notice after a password reset. */
export function passwordChangedMail(w: MailWords): MailContent {
  return letter(w, w.t.t('mail.changed.subject'), w.t.t('mail.changed.body'));
}

/** To the holder of an address another account tried to move to. */
export function addressInUseMail(w: MailWords): MailContent {
  return letter(w, w.t.t('mail.inUse.subject'), w.t.t('mail.inUse.body'));
}

/** To the new address of an e-mail change: confirm it. */
export function confirmNewAddressMail(w: MailWords, { url, ttlSeconds }: LinkMail): MailContent {
  const { t } = w;
  return letter(w, t.t('mail.confirmNew.subject'), t.t('mail.confirmNew.body'), url, expiry(t, ttlSeconds));
}

/** To the current address of an e-mail change: the change was asked for, and how to stop it. */
export function addressChangingMail(w: MailWords, { resetPageUrl }: { resetPageUrl: string }): MailContent {
  const { t } = w;
  return letter(w, t.t('mail.changing.subject'), t.t('mail.changing.body'), resetPageUrl);
}

/** Which second factor changed, in words for the notice mails. */
export type FactorName = 'an authenticator app (TOTP)' | 'new recovery codes' | 'a passkey';

/** The factor's name in the reader's words. */
function factorWords(t: Translator, factor: FactorName): string {
  return t.t(
    factor === 'new recovery codes'
      ? 'mail.factor.recovery'
      : factor === 'a passkey'
        ? 'mfa.factor.passkey'
        : 'mail.factor.totp',
  );
}

/** Notice after a second factor was added; other sessions were signed out. */
export function secondFactorAddedMail(w: MailWords, { factor }: { factor: FactorName }): MailContent {
  const { t } = w;
  return letter(w, t.t('mail.factorAdded.subject'), t.t('mail.factorAdded.body', { factor: factorWords(t, factor) }));
}

/** Notice after a second factor was removed; other sessions were signed out. */
export function secondFactorRemovedMail(w: MailWords, { factor }: { factor: FactorName }): MailContent {
  const { t } = w;
  return letter(
    w,
    t.t('mail.factorRemoved.subject'),
    t.t('mail.factorRemoved.body', { factor: factorWords(t, factor) }),
  );
}

/** After a password change on the account page (the browser that changed it stays signed in). */
export function passwordChangedHereMail(w: MailWords): MailContent {
  return letter(w, w.t.t('account.mail.passwordChanged.subject'), w.t.t('account.mail.passwordChanged.body'));
}

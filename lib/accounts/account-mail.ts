import type { Logger } from '../core/logger.js';
import type { Account } from '../core/account-store.js';
import { parseEmailAddress } from '../core/email-address.js';
import { Translator, type Locale } from '../ui/i18n.js';
import type { UiSettings } from '../ui/ui.js';
import {
  confirmAddressMail,
  type LinkMail,
  type MailContent,
  type MailTemplate,
  type MailWords,
} from './mail-templates.js';
import type { Mailer } from '../core/mailer.js';
import { ACCOUNT_PATHS } from './paths.js';
import type { TokenPurpose, TokenRecord, VerificationTokens } from './verification-tokens.js';

/** What {@link AccountMail} needs. */
export interface AccountMailDeps {
  /** `undefined` when no mail can be sent (production without `mail.smtp`). */
  mailer: Mailer | undefined;
  tokens: VerificationTokens;
  /** The issuer URL; links in mails are absolute under it. */
  issuer: string;
  /** `selfService.verificationTtl` (verify and change links) and `selfService.resetTtl`, in seconds. */
  verificationTtl: number;
  resetTtl: number;
  logger: Logger;
  /** Languages and product name of the mails (`ui`); the English defaults when missing. */
  ui?: UiSettings;
}

/**
 * Sends the account mails: issues the single-use token of a link mail, builds its absolute link and delivers
 * in the background, so how long SMTP takes does not tell an attacker whether a mail was sent. A failed
 * delivery is logged, never shown.
 */
export class AccountMail {
  readonly #deps: AccountMailDeps;

  constructor(deps: AccountMailDeps) {
    this.#deps = deps;
  }

  /** Whether a mailer is configured (the pages that need mail are off without one). */
  get enabled(): boolean {
    return this.#deps.mailer !== undefined;
  }

  /** The absolute URL of an account page. */
  pageUrl(path: string): string {
    // Under the issuer's path, as every page (`https://host/auth` + `/account/verify?…`).
    return new URL(`${this.#deps.issuer.replace(/\/$/, '')}${path}`).href;
  }

  /** The words of a mail in `locale` (else `ui.defaultLocale`). */
  words(locale?: Locale): MailWords {
    const ui = this.#deps.ui;
    if (!ui) return { t: new Translator(locale ?? 'en'), product: 'Portcullis' };
    return { t: ui.translators[locale ?? ui.defaultLocale], product: ui.productName };
  }

  /**
   * Delivers the mail `template` writes in `locale` to the address `to` in the background. Expects a mailer
   * (callers check {@link enabled}). `to` is always an address the account holds (or, for an e-mail change link,
   * the new address as typed), never another spelling typed into a form; the mail goes to its
   * `mailbox` form (`parseEmailAddress`): the local part as typed and the domain in ASCII (the domain its canonical
   * form names, so `bücher.example` written with a combining mark or fullwidth letters reaches the same host).
   */
  deliver(to: string, template: MailTemplate, locale?: Locale, link?: string): void {
    const content: MailContent = template(this.words(locale));
    const message = { to: parseEmailAddress(to)?.mailbox ?? to, link, ...content };
    this.#deps
      .mailer!.send(message)
      .catch((err: unknown) =>
        this.#deps.logger.error({ err, to, subject: content.subject }, 'account mail could not be sent'),
      );
  }

  /**
   * Issues a token for `record` under `purpose` (valid for the purpose's TTL) and mails the link built by
   * `template` to `record.email` in `locale`. Reset links open the new-password page; the others the
   * confirmation page.
   */
  async sendLink(
    purpose: TokenPurpose,
    record: Omit<TokenRecord, 'purpose'>,
    template: (words: MailWords, link: LinkMail) => MailContent,
    locale?: Locale,
  ): Promise<void> {
    const ttlSeconds = purpose === 'reset-password' ? this.#deps.resetTtl : this.#deps.verificationTtl;
    const token = await this.#deps.tokens.issue({ ...record, purpose }, ttlSeconds);
    const url = this.pageUrl(
      `${purpose === 'reset-password' ? ACCOUNT_PATHS.resetConfirm : ACCOUNT_PATHS.verify}?token=${token}`,
    );
    this.deliver(record.email, (w) => template(w, { url, ttlSeconds }), locale, url);
  }

  /** Mails `account` a link confirming its address in `locale`; `returnTo` is offered once the link is used. */
  sendVerification(account: Account, returnTo?: string, locale?: Locale): Promise<void> {
    return this.sendLink(
      'verify-email',
      { accountId: account.id, email: account.email, returnTo },
      confirmAddressMail,
      locale,
    );
  }
}

import type { Logger } from '../../core/logger.js';
import type { AccountMail } from '../account-mail.js';
import type { AccountSessions } from '../account-sessions.js';
import type { Account } from '../../core/account-store.js';
import type { Locale } from '../../ui/i18n.js';
import { secondFactorAddedMail, secondFactorRemovedMail, type FactorName } from '../mail-templates.js';

/**
 * What follows every change of an account's second factors: the other sessions are signed out with their tokens
 * (the one that made the change stays), and the account's address gets a notice (the owner learns of a change
 * an attacker made). Without a mailer the notice is only logged.
 *
 * The notice is written in the language of the request that made the change (the page the user was on when they
 * added or removed the factor, chosen by `ui_locales` then `Accept-Language`): every factor change is made by the
 * account's owner (or whoever holds their sign-in) in a browser, so that request's language is the one they read.
 * Nothing is stored on the account for it.
 */
export class FactorChanges {
  constructor(
    private readonly sessions: AccountSessions,
    private readonly mail: AccountMail,
    private readonly logger: Logger,
  ) {}

  /**
   * @param keepSessionId the session that made the change (`_session` cookie value), kept signed in.
   * @param locale the language of the request that made the change (`uiOf(ctx).locale`); `ui.defaultLocale`
   *   when absent.
   */
  async changed(
    account: Account,
    change: 'added' | 'removed',
    factor: FactorName,
    keepSessionId: string | undefined,
    locale?: Locale,
  ): Promise<void> {
    const ended = await this.sessions.revokeOthers(account.id, keepSessionId);
    this.logger.info(
      { accountId: account.id, change, factor, ended },
      'second factor changed: other sessions signed out',
    );
    if (!this.mail.enabled) return;
    this.mail.deliver(
      account.email,
      (words) => (change === 'added' ? secondFactorAddedMail : secondFactorRemovedMail)(words, { factor }),
      locale,
    );
  }
}

import type { Locale } from '../../ui/i18n.js';
import { mailForTakenAddress } from '../hijacking-policy.js';
import { parseEmailAddress } from '../../core/email-address.js';
import { passwordProblem } from '../input-rules.js';
import { finishSetupMail, signupAddressTakenMail } from '../mail-templates.js';
import { ACCOUNT_PATHS, returnToFor } from '../paths.js';
import {
  invalid,
  rateLimited,
  type AccountServices,
  type Invalid,
  type MailSent,
  type RateLimited,
} from './services.js';

/** A sign-up form, trimmed and cut to the field limits. */
export interface SignUpInput {
  /** Client IP (`ctx.ip`), for the mail rate limit. */
  ip: string;
  givenName: string;
  familyName: string;
  email: string;
  password: string;
  /** The pending login's interaction uid, if the visitor came from a login page. */
  interaction?: string;
  /** Language of the mail. @default `ui.defaultLocale` */
  locale?: Locale;
}

export type SignUpResult = Invalid | RateLimited | MailSent;

/**
 * Creates an unverified account and mails a confirmation link (SPEC rule 9: "verify account details such as
 * e-mail address at user registration"). When the address is taken, the owner gets a mail instead (see
 * hijacking-policy.ts) and the visitor the same answer as for a new account. Checks in order: names, address
 * (`parseEmailAddress`: one that cannot be normalised is invalid), password, then the mail limit per IP and
 * address. The account keeps the address as typed (trimmed, NFC, no trailing dot); "taken" means an account with the
 * same canonical form, so `bob@bücher.example` and `BOB@xn--bcher-kva.example.` are one account.
 */
export async function signUp(services: AccountServices, input: SignUpInput): Promise<SignUpResult> {
  const { accounts, limits, logger, mail } = services;
  if (!input.givenName || !input.familyName) return invalid({ key: 'account.invalid.names' });
  const address = parseEmailAddress(input.email);
  if (!address) return invalid({ key: 'account.invalid.email' });
  const weak = passwordProblem(input.password, services.passwordMinLength);
  if (weak) return invalid(weak);
  const refused = rateLimited(await limits.mailRequest(input.ip, address.key));
  if (refused) return refused;

  const returnTo = returnToFor(input.interaction);
  const created = await accounts.create({
    email: address.address,
    password: input.password,
    claims: {
      given_name: input.givenName,
      family_name: input.familyName,
      name: `${input.givenName} ${input.familyName}`,
    },
  });
  if (created) {
    logger.info({ accountId: created.id }, 'account created (e-mail not verified yet)');
    await mail.sendVerification(created, returnTo, input.locale);
    return { kind: 'mail-sent', returnTo };
  }
  const taken = mailForTakenAddress(await accounts.findByEmail(address.address));
  if (taken.kind === 'finish-setup') {
    const { account } = taken;
    await mail.sendLink(
      'reset-password',
      { accountId: account.id, email: account.email, returnTo },
      finishSetupMail,
      input.locale,
    );
  } else if (taken.kind === 'notify-owner') {
    mail.deliver(
      taken.account.email,
      (w) => signupAddressTakenMail(w, { resetPageUrl: mail.pageUrl(ACCOUNT_PATHS.reset) }),
      input.locale,
    );
  }
  return { kind: 'mail-sent', returnTo };
}

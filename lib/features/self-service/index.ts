import type Provider from 'oidc-provider';
import { BODY_LIMITS } from '../../http/body-limit.js';
import { PAGE_PREFIXES } from '../../http/paths.js';
import type { Feature } from '../../kernel/types.js';
import { accountFlows, type AccountFlows } from '../../accounts/account-routes.js';
import { FactorChanges } from '../../accounts/mfa/factor-changes.js';
import { ACCOUNT_PATHS } from '../../accounts/paths.js';
import type { SecondFactorService } from '../../accounts/mfa/second-factor-service.js';
import type { PasskeyList } from '../../accounts/use-cases/services.js';
import type { Services, ServicesOf } from '../services.js';
import { selfServiceInProduction } from './checks.js';
import { selfServiceOptions } from './options.js';

declare module '../services.js' {
  interface Services {
    /** Sign-up, verification, reset and e-mail change; the notices of second-factor changes (account mails). */
    'self-service': { flows: AccountFlows; changes: FactorChanges };
  }
}

/**
 * Self-service account flows under `/account`: sign-up, e-mail verification and resend, password reset and e-mail
 * change (sign-up and reset need `mail.smtp`). Its services: the flows (the login page links them) and the notices
 * of second-factor changes (adding or removing TOTP, recovery codes or a passkey signs the other sessions out and
 * mails the account).
 */
export const selfService: Feature<Services['self-service']> = {
  id: 'self-service',
  requires: ['passkeys', 'mfa'],
  options: selfServiceOptions,
  pages: ACCOUNT_PATHS,
  // Sign-up is open by default outside production only.
  defaults: ({ selfService, production }) => ({
    selfService: { ...selfService, signup: selfService.signup ?? !production },
  }),
  enabled: () => true,
  insecure: selfServiceInProduction,
  setup({ config, kernel, use }) {
    // Either feature may be absent from the program: what the flows read of them is typed by lib/accounts.
    const passkeys = use<ServicesOf<'passkeys', { service: PasskeyList }>>('passkeys')?.service;
    const factors = use<ServicesOf<'mfa', { factors: SecondFactorService }>>('mfa')?.factors;
    let provider: Provider | undefined; // set by routes(), before any request
    const flows = accountFlows({
      config,
      accounts: kernel.accounts,
      tokens: kernel.linkTokens,
      mailer: kernel.mailer,
      limits: kernel.limits,
      sessions: kernel.sessions,
      csrf: kernel.csrf,
      logger: kernel.logger,
      ui: kernel.ui,
      secondFactors: factors && { factors, passkeys: config.passkeys.secondFactor ? passkeys : undefined },
      signInMethods: { factors, passkeys },
      responseModeOf: async (uid) => (await provider!.Interaction.find(uid))?.params.response_mode,
    });
    return {
      services: { flows, changes: new FactorChanges(kernel.sessions, flows.mail, kernel.logger) },
      routes(created) {
        provider = created;
        return [
          {
            name: 'accountFlows',
            where: { segment: PAGE_PREFIXES.account },
            bodyLimit: BODY_LIMITS.pages,
            chain: [flows.routes],
          },
        ];
      },
    };
  },
};

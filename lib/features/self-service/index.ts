import type Provider from 'oidc-provider';
import { BODY_LIMITS } from '../../http/body-limit.js';
import { PAGE_PREFIXES } from '../../http/paths.js';
import type { Feature } from '../../kernel/types.js';
import { accountFlows } from '../../accounts/account-routes.js';
import { FactorChanges } from '../../accounts/mfa/factor-changes.js';
import type { Services } from '../services.js';
import { selfServiceInProduction } from './checks.js';
import { selfServiceOptions } from './options.js';

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
  enabled: () => true,
  insecure: selfServiceInProduction,
  setup({ config, kernel, use }) {
    const passkeys = use<Services['passkeys']>('passkeys')?.service;
    const factors = use<Services['mfa']>('mfa')?.factors;
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

import type Provider from 'oidc-provider';
import { ConfigError } from '../../core/errors.js';
import { BODY_LIMITS } from '../../http/body-limit.js';
import { PAGE_PREFIXES } from '../../http/paths.js';
import type { Feature } from '../../kernel/types.js';
import { accountHomeRoutes, type AccountHomeDeps, type AccountSection } from '../../accounts/account-home.js';
import { ACCOUNT_PATHS, HOME_PATHS } from '../../accounts/paths.js';
import { SessionDevices } from '../../accounts/session-devices.js';
import type { ExtensionPoints, Services } from '../services.js';

declare module '../services.js' {
  interface Services {
    /** The account page: what its guard and forms need, once the provider exists (the passkey page shares them). */
    account: { homeFor(provider: Provider): AccountHomeDeps };
  }
  interface ExtensionPoints {
    /** A section of the signed-in account page `/account`: its markup, the view fields it fills, its forms. */
    accountSections: AccountSection;
  }
}

/**
 * The signed-in account page `/account`: profile, e-mail and password, the features' sections (`accountSections`),
 * sessions (with the device
 * each signed in from, recorded on oidc-provider's resume route) and connected applications. Its services give the
 * page's guard and forms to the pages that share them under `/account`.
 */
export const account: Feature<Services['account']> = {
  id: 'account',
  requires: ['self-service'],
  pages: HOME_PATHS,
  enabled: () => true,
  setup({ config, kernel, use, extensions }) {
    const selfService = use<Services['self-service']>('self-service');
    if (!selfService)
      throw new ConfigError('features', 'account needs the self-service feature (its mails and reset link)');
    const { flows } = selfService;
    const devices = new SessionDevices(kernel.storage.adapter, kernel.logger); // each session's User-Agent and IP
    const { consents, scopes } = kernel;
    let home: AccountHomeDeps | undefined;
    const homeFor = (provider: Provider): AccountHomeDeps =>
      (home ??= {
        provider,
        issuer: config.issuer,
        accounts: kernel.accounts,
        sessions: kernel.sessions,
        csrf: kernel.csrf,
        cookieKeys: kernel.cookieKeys,
        logger: kernel.logger,
        reauthenticateAfterSeconds: config.mfa.reauthenticateAfterSeconds,
        // Asked for once the provider exists (routes), when every feature has added its sections.
        sections: [...extensions<ExtensionPoints['accountSections']>('accountSections')].sort(
          (a, b) => a.order - b.order,
        ),
        changeEmailUrl: flows.mail.enabled ? ACCOUNT_PATHS.changeEmail : undefined,
        resetUrl: flows.resetUrl(),
        devices,
        limits: kernel.limits,
        mail: flows.mail,
        linkTokens: kernel.linkTokens,
        passwordMinLength: config.selfService.passwordMinLength,
        forgetConsent: (a, c) => consents.revoke(a, c),
        listConsents: (a) => consents.list(a),
        describeScope: (name) => scopes.describe(name),
      });
    return {
      provider: { before: [{ endpoints: ['resume'], middleware: devices.middleware() as never }] },
      services: { homeFor },
      routes: (provider) => [
        {
          name: 'accountPage',
          where: { segment: PAGE_PREFIXES.account },
          bodyLimit: BODY_LIMITS.pages,
          chain: [accountHomeRoutes(homeFor(provider))],
        },
      ],
    };
  },
};

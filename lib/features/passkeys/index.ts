import { hasPasskeyMethods } from '../../core/account-store.js';
import { BODY_LIMITS } from '../../http/body-limit.js';
import { PAGE_PREFIXES } from '../../http/paths.js';
import type { Feature } from '../../kernel/types.js';
import { PasskeyChallenges } from './challenges.js';
import { PasskeyService } from './passkey-service.js';
import { relyingPartyFor } from './relying-party.js';
import { passkeyAccountRoutes } from './routes.js';
import { passkeySignInMethod } from './sign-in-actions.js';
import { passkeysAccountSection } from './account-section.js';
import './messages.js'; // the passkey.* messages, in the catalogs before ui.messages is checked
import type { ExtensionPoints, Services } from '../services.js';
import { checkPasskeys, passkeysDefaults } from './checks.js';
import { passkeysOptions } from './options.js';
import { PASSKEY_PATHS } from './paths.js';

declare module '../services.js' {
  interface Services {
    /** `passkeys.enabled` with an account store that keeps passkeys. */
    passkeys: { service: PasskeyService; secondFactor: boolean };
  }
}

/**
 * Passkeys (WebAuthn, `passkeys.enabled`): the service that registers and checks them (the login page and, with
 * `passkeys.secondFactor`, the second step use it), and the account's passkey page `/account/passkeys` behind the
 * account page's sign-in guard.
 */
export const passkeys: Feature<Services['passkeys'] | undefined> = {
  id: 'passkeys',
  options: passkeysOptions,
  defaults: passkeysDefaults,
  pages: PASSKEY_PATHS,
  enabled: (config) => config.passkeys.enabled,
  check: checkPasskeys,
  async setup({ config, kernel, use }) {
    const { accounts, storage, logger } = kernel;
    // loadConfig refused passkeys.enabled with a store lacking the methods; the type guard only narrows.
    if (!hasPasskeyMethods(accounts)) return {};
    const challenges = new PasskeyChallenges(storage.adapter, config.passkeys.challengeTtl);
    const service = await PasskeyService.create({
      accounts,
      challenges,
      rp: relyingPartyFor(config.issuer, config.passkeys.rpName),
      logger,
    });
    return {
      services: { service, secondFactor: config.passkeys.secondFactor },
      extend: {
        signIn: passkeySignInMethod(service, config.passkeys.secondFactor),
        accountSections: passkeysAccountSection,
      } satisfies Partial<ExtensionPoints>,
      routes(provider) {
        const account = use<Services['account']>('account');
        const changes = use<Services['self-service']>('self-service')?.changes;
        if (!account || !changes) return [];
        const page = passkeyAccountRoutes({ home: account.homeFor(provider), passkeys: service, changes });
        return [
          {
            name: 'passkeyPage',
            where: { segment: PAGE_PREFIXES.account },
            bodyLimit: BODY_LIMITS.pages,
            chain: [page],
          },
        ];
      },
    };
  },
};

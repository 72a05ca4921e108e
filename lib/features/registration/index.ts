import type Provider from 'oidc-provider';
import { PROVIDER_ROUTES } from '../../http/paths.js';
import type { Feature } from '../../kernel/types.js';
import { InitialAccessTokens, type MintInitialAccessTokenOptions } from '../../oidc/initial-access-tokens.js';
import { registrationEnabled } from '../../oidc/provider.js';
import type { Services } from '../services.js';
import { registrationOptions } from './options.js';

declare module '../services.js' {
  interface Services {
    /** `registration.enabled`: initial access tokens (`server.mintInitialAccessToken`). */
    registration: { mint(provider: Provider, options?: MintInitialAccessTokenOptions): Promise<string> };
  }
}

/**
 * Dynamic client registration (RFC 7591, management RFC 7592; `registration.enabled`) behind initial access tokens
 * (RFC 7591 §3): minted ones are stored (`server.mintInitialAccessToken`) and single-use by default, the configured
 * one (`registration.initialAccessToken`) is answered by an adapter wrapper without being stored. Off, oidc-provider
 * has no registration route and `/registration` answers 404.
 */
export const registration: Feature<Services['registration']> = {
  id: 'registration',
  options: registrationOptions,
  // `registration.enabled` defaults to whether a token is configured.
  defaults: ({ registration }) => ({
    registration: { ...registration, enabled: registration.enabled ?? Boolean(registration.initialAccessToken) },
  }),
  enabled: registrationEnabled,
  setup({ config, kernel }) {
    const tokens = new InitialAccessTokens(kernel.storage.adapter);
    return {
      provider: {
        configure(configuration) {
          configuration.features!.registration = {
            enabled: true,
            initialAccessToken: true,
            policies: tokens.policies as never,
          };
          configuration.features!.registrationManagement = { enabled: true, rotateRegistrationAccessToken: true };
        },
        wrapAdapter: (factory) => InitialAccessTokens.withConfigured(factory, config.registration.initialAccessToken),
        // Single-use initial access tokens: only the reserving registration settles the token.
        before: [{ endpoints: ['registration'], middleware: tokens.settle(PROVIDER_ROUTES.registration) as never }],
      },
      services: { mint: (provider, options) => tokens.mint(provider, options) },
    };
  },
};

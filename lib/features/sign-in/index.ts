import { ConfigError } from '../../core/errors.js';
import { BODY_LIMITS } from '../../http/body-limit.js';
import { PAGE_PREFIXES } from '../../http/paths.js';
import type { Feature } from '../../kernel/types.js';
import type { SecondSignInStep, SignInMethod } from '../../oidc/interaction/common.js';
import { interactionRoutes } from '../../oidc/interactions.js';
import type { ExtensionPoints, Services } from '../services.js';

declare module '../services.js' {
  interface ExtensionPoints {
    /** A way to sign in on the login page `/interaction/:uid`: a block and its POST actions. */
    signIn: SignInMethod;
    /**
     * The second sign-in step after the password (the mfa feature's TOTP and recovery codes): the first feature's
     * contribution is used, a second one is ignored.
     */
    secondStep: SecondSignInStep;
  }
}

/**
 * The sign-in and consent pages at `/interaction/:uid` (OpenID Connect Core §3.1.2.3–§3.1.2.4): the password,
 * and the other features' sign-in methods (`signIn`) and second step (`secondStep`), links to sign-up and reset
 * (`self-service`).
 */
export const signIn: Feature = {
  id: 'sign-in',
  requires: ['self-service'],
  enabled: () => true,
  setup({ config, kernel, use, extensions }) {
    const selfService = use<Services['self-service']>('self-service');
    if (!selfService) throw new ConfigError('features', 'sign-in needs the self-service feature (its links and mails)');
    return {
      routes: (provider) => [
        {
          name: 'interactionPages',
          where: { segment: PAGE_PREFIXES.interaction },
          bodyLimit: BODY_LIMITS.pages,
          chain: [
            interactionRoutes({
              provider,
              accounts: kernel.accounts,
              consents: kernel.consents,
              scopes: kernel.scopes,
              csrf: kernel.csrf,
              flows: selfService.flows,
              limits: kernel.limits,
              requireVerifiedEmail: config.selfService.requireVerifiedEmail,
              allowRemoteLogos: config.registration.allowRemoteLogos,
              secondStep: extensions<ExtensionPoints['secondStep']>('secondStep')[0],
              methods: extensions<ExtensionPoints['signIn']>('signIn'),
            }),
          ],
        },
      ],
    };
  },
};

import type { Feature } from '../../kernel/types.js';
import { SecondFactors } from './second-factors.js';
import type { Services } from '../services.js';
import { checkMfa, mfaInProduction } from './checks.js';
import { mfaOptions } from './options.js';

/**
 * Second factors (`mfa.enabled`): TOTP and recovery codes, which the login's second step, the sign-up's enrolment
 * and the account page use. The step-up rule of the authorization policy and the `acr` values stay with the
 * provider's configuration (lib/oidc/provider.ts), which reads `mfa.enabled`.
 */
export const mfa: Feature<Services['mfa']> = {
  id: 'mfa',
  options: mfaOptions,
  enabled: (config) => config.mfa.enabled,
  check: checkMfa,
  insecure: mfaInProduction,
  setup({ config, kernel }) {
    const { accounts, limiterBackend, logger, linkTokens } = kernel;
    const factors = new SecondFactors({
      accounts,
      // Without a key of its own: one derived from the first cookie key (a configured secret in production).
      encryptionKey: config.mfa.encryptionKey ?? kernel.secret('mfa'),
      issuerLabel: config.mfa.issuerLabel ?? new URL(config.issuer).hostname,
      limits: { perAccount: config.accountLimits.secondFactorPerAccount, perIp: config.accountLimits.secondFactorPerIp },
      limiterBackend,
    });
    if (!config.mfa.encryptionKey) logger.warn('mfa.encryptionKey not set: TOTP secrets are encrypted with a key derived from keys.cookies[0]; set mfa.encryptionKey so that rotating cookie keys keeps enrolled authenticator apps working');
    return {
      services: {
        factors,
        pending: kernel.storage.adapter('MfaPending'),
        reauthenticateAfterSeconds: config.mfa.reauthenticateAfterSeconds,
        credentialsChangedAt: (id: string) => linkTokens.credentialsChangedAt(id),
      },
    };
  },
};

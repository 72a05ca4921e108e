import type { Feature } from '../../kernel/types.js';
import { SecondFactors } from './second-factors.js';
import type { ExtensionPoints, Services } from '../services.js';
import { ConfigError } from '../../core/errors.js';
import { mfaSecondStep, type MfaInteractionDeps } from './second-step.js';
import { mfaAccountSection } from './account-section.js';
import { checkMfa, mfaInProduction } from './checks.js';
import { mfaOptions } from './options.js';
import { MFA_PATHS } from './paths.js';
import './messages.js'; // the mfa.* messages, in the catalogs before ui.messages is checked

declare module '../services.js' {
  interface Services {
    /** `mfa.enabled`: TOTP and recovery codes, and what the second sign-in step needs besides the factor changes. */
    mfa: Omit<MfaInteractionDeps, 'changes'>;
  }
}

/**
 * Second factors (`mfa.enabled`): TOTP and recovery codes, which the login's second step, the sign-up's enrolment
 * and the account page use. The step-up rule of the authorization policy and the `acr` values stay with the
 * provider's configuration (lib/oidc/provider.ts), which reads `mfa.enabled`.
 */
export const mfa: Feature<Services['mfa']> = {
  id: 'mfa',
  options: mfaOptions,
  pages: MFA_PATHS,
  enabled: (config) => config.mfa.enabled,
  check: checkMfa,
  insecure: mfaInProduction,
  setup({ config, kernel, use }) {
    const { accounts, limiterBackend, logger, linkTokens } = kernel;
    const factors = new SecondFactors({
      accounts,
      // Without a key of its own: one derived from the first cookie key (a configured secret in production).
      encryptionKey: config.mfa.encryptionKey ?? kernel.secret('mfa'),
      issuerLabel: config.mfa.issuerLabel ?? new URL(config.issuer).hostname,
      limits: {
        perAccount: config.accountLimits.secondFactorPerAccount,
        perIp: config.accountLimits.secondFactorPerIp,
      },
      limiterBackend,
    });
    if (!config.mfa.encryptionKey)
      logger.warn(
        'mfa.encryptionKey not set: TOTP secrets are encrypted with a key derived from keys.cookies[0]; set ' +
          'mfa.encryptionKey so that rotating cookie keys keeps enrolled authenticator apps working',
      );
    const services: Services['mfa'] = {
      factors,
      pending: kernel.storage.adapter('MfaPending'),
      reauthenticateAfterSeconds: config.mfa.reauthenticateAfterSeconds,
      credentialsChangedAt: (id: string) => linkTokens.credentialsChangedAt(id),
    };
    // The notices of factor changes are the self-service feature's (account mails), set up after this one: taken
    // when the sign-in first asks for the step (its routes), once every feature is set up.
    let step: MfaInteractionDeps | undefined;
    const withChanges = (): MfaInteractionDeps =>
      (step ??= {
        ...services,
        changes: use<Services['self-service']>('self-service')?.changes ?? missing(),
      });
    return {
      services,
      extend: {
        secondStep: mfaSecondStep(withChanges),
        accountSections: mfaAccountSection({ factors, changes: () => withChanges().changes }),
      } satisfies Partial<ExtensionPoints>,
    };
  },
};

function missing(): never {
  throw new ConfigError('features', 'mfa needs the self-service feature (the notices of factor changes)');
}

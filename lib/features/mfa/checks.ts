import { SECOND_FACTOR_METHODS } from '../../core/account-store.js';
import { ConfigError, type ConfigProblem } from '../../core/errors.js';
import type { ResolvedConfig } from '../../../config/types.js';

/**
 * What the mfa feature refuses when on (`check`, run by `loadConfig`): a host store without the second-factor methods.
 * @throws {ConfigError} `ERR_CONFIG_INVALID` at `accountStore.<method>`.
 */
export function checkMfa(config: ResolvedConfig): void {
  for (const method of SECOND_FACTOR_METHODS) {
    if (config.accountStore && typeof config.accountStore[method] !== 'function') {
      throw new ConfigError(
        `accountStore.${method}`,
        'must be a function when mfa.enabled is on (see the AccountStore interface), or set mfa.enabled to false',
      );
    }
  }
}

/** What NODE_ENV=production refuses while mfa is on (`insecure`): TOTP secrets encrypted with a key of their own. */
export function mfaInProduction(config: ResolvedConfig): ConfigProblem[] {
  // Derived from keys.cookies[0] otherwise: rotating the cookie keys would make every enrolled TOTP unusable.
  if (config.mfa.encryptionKey) return [];
  return [
    {
      path: 'mfa.encryptionKey',
      message:
        'NODE_ENV=production with mfa.enabled needs mfa.encryptionKey, the secret that encrypts TOTP secrets ' +
        'at rest: set it to a random secret of at least 32 characters, not one of the cookie keys ' +
        '(PORTCULLIS_MFA_KEY for the standalone server; `npx portcullis cookie-key` makes one), or set ' +
        'mfa.enabled: false',
    },
  ];
}

import { PASSKEY_STORE_METHODS } from '../../core/account-store.js';
import { ConfigError } from '../../core/errors.js';
import type { ResolvedConfig, ValidatedConfig } from '../../../config/types.js';
import { relyingPartyFor } from './relying-party.js';

/**
 * The first passkey method (`PASSKEY_STORE_METHODS`) a host's `accountStore` lacks; the built-in stores have them all.
 */
function missingPasskeyMethod(store: object | undefined): string | undefined {
  return PASSKEY_STORE_METHODS.find((m) => store && typeof (store as Record<string, unknown>)[m] !== 'function');
}

/**
 * The `passkeys` section with its derived defaults (`defaults`, run by `loadConfig`): `enabled` when the issuer's
 * host can be a WebAuthn relying-party ID and the account store has the passkey methods; `secondFactor` when
 * `mfa.enabled`.
 */
export function passkeysDefaults(config: ValidatedConfig): Pick<ResolvedConfig, 'passkeys'> {
  const { passkeys } = config;
  const usable = relyingPartyFor(config.issuer, passkeys.rpName).usable;
  return {
    passkeys: {
      ...passkeys,
      enabled: passkeys.enabled ?? (usable && !missingPasskeyMethod(config.accountStore)),
      secondFactor: passkeys.secondFactor ?? config.mfa.enabled,
    },
  };
}

/**
 * What the passkeys feature refuses when on (`check`, run by `loadConfig`): a host store without the passkey methods,
 * the passkey as a second factor without `mfa`, an issuer whose host cannot be a relying-party ID (an IP address).
 * @throws {ConfigError} `ERR_CONFIG_INVALID` at the method, `passkeys.secondFactor` or `passkeys.enabled`.
 */
export function checkPasskeys(config: ResolvedConfig): void {
  const missing = missingPasskeyMethod(config.accountStore);
  if (missing) {
    throw new ConfigError(
      `accountStore.${missing}`,
      'must be a function when passkeys.enabled is on (see the AccountStore interface), or set ' +
        'passkeys.enabled to false',
    );
  }
  if (config.passkeys.secondFactor && !config.mfa.enabled) {
    throw new ConfigError(
      'passkeys.secondFactor',
      'the passkey as a second factor is a step of mfa: set mfa.enabled to true, or passkeys.secondFactor to false',
    );
  }
  if (!relyingPartyFor(config.issuer, config.passkeys.rpName).usable) {
    throw new ConfigError(
      'passkeys.enabled',
      `passkeys need an issuer whose host is a domain name (WebAuthn relying-party ID), ` +
        `not ${new URL(config.issuer).hostname}: use e.g. http://localhost:PORT in development, or set ` +
        `passkeys.enabled to false`,
    );
  }
}

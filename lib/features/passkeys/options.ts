/**
 * The passkeys feature's options: `passkeys` (WebAuthn sign-in, and the passkey as a second factor).
 * Its slice of the option schema, composed into the one schema (validation, types, defaults, the option reference)
 * by config/options.ts. Schema only: it imports the option kit (config/option-kit.ts) and nothing else of ours, so
 * that config/ may import it (.dependency-cruiser.cjs).
 */
import { Type } from '@sinclair/typebox';
import { derived, seconds, section, withDefault } from '../../../config/option-kit.js';

/** Top-level options of the `passkeys` feature. */
export const passkeysOptions = {
  passkeys: section('Passkeys (WebAuthn): sign-in without a password, or as a second factor', {
    enabled: derived(Type.Boolean(), {
      defaultText: '`true` when the issuer host is a domain name and the account store has the passkey methods',
      description:
        'Passkeys: `/account/passkeys` to register, rename and delete them, a passkey sign-in (with ' +
        'autofill) on the login page, and the passkey as a second factor after a password. Relying-party ID ' +
        "= the issuer's host name, expected origin = the issuer's origin",
      security:
        'passwordless sign-in requires user verification (PIN or biometrics) and gives `amr` `hwk`/`swk` + ' +
        '`user` + `mfa`; a host `accountStore` without the passkey methods is refused when set to `true`',
      see: 'WebAuthn Level 3, RFC 8176',
    }),
    rpName: withDefault(Type.String({ minLength: 1, maxLength: 64 }), 'Portcullis', {
      description: 'Relying-party name the authenticator may show next to the passkey',
      see: 'WebAuthn §5.4.2',
    }),
    secondFactor: derived(Type.Boolean(), {
      defaultText: '`true` when `mfa.enabled`',
      description:
        'An account that has a passkey must also present it (or its TOTP code) after its password, in the ' +
        'second sign-in step of `mfa` (`amr` `pwd` + `hwk`/`swk` + `mfa`); a passkey also counts as enrolled ' +
        'for `require_mfa` and `acr_values`. Needs `mfa.enabled`',
      security:
        '`false` lets a password alone still sign in such an account; `true` with `mfa.enabled: false` is refused',
    }),
    challengeTtl: withDefault(seconds({ maximum: 3600 }), 300, {
      unit: 'seconds',
      description:
        'Lifetime of a WebAuthn challenge (stored server-side, bound to the login or the session, single use)',
      see: 'WebAuthn §13.4.3',
    }),
  }),
};

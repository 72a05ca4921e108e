/**
 * The mfa feature's options: `mfa` (TOTP with recovery codes; the account page's re-authentication window).
 * Its slice of the option schema, composed into the one schema (validation, types, defaults, the option reference)
 * by config/options.ts. Schema only: it imports the option kit (config/option-kit.ts) and nothing else of ours, so
 * that config/ may import it (.dependency-cruiser.cjs).
 */
import { Type } from '@sinclair/typebox';
import { optional, seconds, section, withDefault } from '../../../config/option-kit.js';

/** Top-level options of the `mfa` feature. */
export const mfaOptions = {
  mfa: section('Second factors (TOTP with recovery codes) and the signed-in account page `/account`', {
    enabled: withDefault(Type.Boolean(), true, {
      description:
        'TOTP enrolment on `/account/security`, the second sign-in step for accounts that enrolled, ' +
        '`require_mfa` clients and `acr_values=urn:portcullis:mfa`. Needs an account store with ' +
        '`getSecondFactor`/`setSecondFactor` (and `updateSecondFactor`, for atomic changes)',
      see: 'RFC 6238, RFC 8176',
    }),
    encryptionKey: optional(Type.String({ minLength: 32 }), {
      defaultText: 'derived from the first cookie key (development only)',
      description:
        'Secret (≥ 32 characters) from which the AES-256-GCM key encrypting TOTP secrets at rest is derived ' +
        '(HKDF-SHA-256). Environment: `PORTCULLIS_MFA_KEY`; `npx portcullis cookie-key` makes one',
      security:
        'required with `NODE_ENV=production` while `mfa.enabled` (`ERR_CONFIG_INSECURE` otherwise): derived ' +
        'from `keys.cookies[0]`, rotating cookie keys would make every enrolled TOTP unusable (recovery ' +
        'codes still work); in development a start-up warning says so',
    }),
    issuerLabel: optional(Type.String({ minLength: 1, maxLength: 64 }), {
      defaultText: "the issuer's host name",
      description: 'Name shown in authenticator apps for the TOTP entry (`issuer` of the `otpauth://` URI)',
    }),
    reauthenticateAfterSeconds: withDefault(seconds(), 600, {
      unit: 'seconds',
      description:
        'On `/account`, a change (factors, sessions, applications) needs a sign-in no older than this; else ' +
        'the browser signs in again first. The `acr_values`/`require_mfa` step-up (second factor or its ' +
        'enrolment without the password) is offered only to a sign-in this recent; an older one asks for the ' +
        'password first',
      security:
        'a browser left signed in cannot change factors, nor enrol the first one by a step-up, without the ' +
        'password (and second factor)',
    }),
  }),
};

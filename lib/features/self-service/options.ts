/**
 * The self-service feature's options: `selfService` (sign-up, e-mail verification, password reset).
 * Its slice of the option schema, composed into the one schema (validation, types, defaults, the option reference)
 * by config/options.ts. Schema only: it imports the option kit (config/option-kit.ts) and nothing else of ours, so
 * that config/ may import it (.dependency-cruiser.cjs).
 */
import { Type } from '@sinclair/typebox';
import { derived, seconds, section, withDefault } from '../../../config/option-kit.js';

/** Top-level options of the `self-service` feature. */
export const selfServiceOptions = {
  selfService: section('Sign-up, e-mail verification and password reset pages', {
    signup: derived(Type.Boolean(), {
      defaultText: '`true` (`false` with NODE_ENV=production)',
      description:
        'Sign-up page at `/account/signup`, linked from the login page; new accounts must verify their e-mail address',
      security: 'needs mail; production refuses it without `mail.smtp`; same answer for taken addresses',
    }),
    requireVerifiedEmail: withDefault(Type.Boolean(), true, {
      description: 'Unverified accounts cannot sign in; `false` lets them in with `email_verified: false`',
      security: 'only relax when every client checks `email_verified`',
      see: 'OIDC Core §5.1',
    }),
    passwordMinLength: withDefault(Type.Integer({ minimum: 8, maximum: 256 }), 12, {
      description: 'Minimum password length in characters (8–256; passwords are at most 256)',
      see: 'NIST SP 800-63B §5.1.1',
    }),
    verificationTtl: withDefault(seconds(), 24 * 3600, {
      unit: 'seconds',
      defaultText: '(24 h)',
      description: 'Lifetime of confirmation links (sign-up, e-mail change); single use',
    }),
    resetTtl: withDefault(seconds(), 3600, {
      unit: 'seconds',
      description: 'Lifetime of password reset links; single use',
    }),
  }),
};

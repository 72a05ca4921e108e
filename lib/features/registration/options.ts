/**
 * The registration feature's options: `registration` (dynamic client registration, RFC 7591).
 * Its slice of the option schema, composed into the one schema (validation, types, defaults, the option reference)
 * by config/options.ts. Schema only: it imports the option kit (config/option-kit.ts) and nothing else of ours, so
 * that config/ may import it (.dependency-cruiser.cjs).
 */
import { Type } from '@sinclair/typebox';
import { derived, optional, section, withDefault } from '../../../config/option-kit.js';

/** Top-level options of the `registration` feature. */
export const registrationOptions = {
  registration: section('Dynamic client registration (RFC 7591)', {
    initialAccessToken: optional(Type.String({ minLength: 16 }), {
      defaultText: 'unset: registration off',
      description:
        'Bearer token required at `POST /registration` (multi-use, no expiry); compared in memory, never ' +
        'written to storage, so a replaced or removed token stops working at the next start',
      security: 'without it nobody can register clients',
      see: 'RFC 7591 §3',
    }),
    enabled: derived(Type.Boolean(), {
      defaultText: '`true` if `initialAccessToken` is set',
      description: 'Turns `POST /registration` on for tokens minted with `server.mintInitialAccessToken()` only',
      security: 'registration always needs an initial access token',
      see: 'RFC 7591 §3',
    }),
    allowRemoteLogos: withDefault(Type.Boolean(), false, {
      description: "Show a client's https `logo_uri` on the consent page (the browser loads it, the server never does)",
      security: "lets a client make users' browsers contact its logo host; CSP `img-src` then allows that one origin",
      see: 'RFC 7591 §2',
    }),
  }),
};

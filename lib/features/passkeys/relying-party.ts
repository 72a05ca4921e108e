import { isIP } from 'node:net';

/** The WebAuthn relying party of an issuer (WebAuthn Level 3 §5.1.3 RP ID, §5.4.2 name). */
export interface RelyingParty {
  /** RP ID: the issuer's host name (no port), e.g. `id.example.com`. */
  id: string;
  /** Expected origin of every ceremony: the issuer's origin, e.g. `https://id.example.com`. */
  origin: string;
  /** What an authenticator may show beside the passkey. */
  name: string;
  /**
   * Whether browsers run WebAuthn there: the host is a domain name (an IP address is never a valid RP ID) in a
   * secure context (https, or `localhost` / `*.localhost` over http, W3C Secure Contexts §3.1).
   */
  usable: boolean;
}

/**
 * The relying party of `issuer`: RP ID = host name, origin = the issuer's origin (a path under the issuer does
 * not change either). Passkeys registered under one host name only work under that host name.
 */
export function relyingPartyFor(issuer: string, name: string): RelyingParty {
  const url = new URL(issuer);
  const id = url.hostname;
  const local = id === 'localhost' || id.endsWith('.localhost');
  const usable = !isIP(id.replace(/^\[|\]$/g, '')) && (url.protocol === 'https:' || local);
  return { id, origin: url.origin, name, usable };
}

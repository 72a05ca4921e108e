/**
 * oidc-provider's `cookies`: the browser session cookie's name and the attributes of every cookie the provider sets,
 * scoped to the issuer's path.
 */
import type { Configuration } from 'oidc-provider';
import { issuerPath } from '../http/routes.js';

/** The browser session cookie's name on an https issuer at a host's root (see {@link sessionCookieName}). */
export const SESSION_COOKIE_SECURE = '__Host-portcullis.session';

/**
 * The name of oidc-provider's browser session cookie (`cookies.names.session`). On an https issuer at a host's root
 * it is {@link SESSION_COOKIE_SECURE}: the `__Host-` prefix (RFC 6265bis §4.1.3.2) makes browsers accept it only
 * with `Secure`, `Path=/` and no `Domain` from this very host, so a sibling host (`evil.example.com` beside
 * `id.example.com`) cannot plant its own session into the victim's browser (login CSRF, session fixation).
 * Elsewhere oidc-provider's `_session`: a path issuer's cookies have `Path=` the issuer's path, which the prefix
 * does not allow, and a plain-http issuer's are not `Secure`.
 */
export function sessionCookieName(issuer: string): string {
  const url = new URL(issuer);
  return url.protocol === 'https:' && issuerPath(issuer) === '' ? SESSION_COOKIE_SECURE : '_session';
}

/**
 * oidc-provider's `cookies`: signed with `keys`, `HttpOnly`, `SameSite=Lax`, under the issuer's path (every URL and
 * cookie of ours is under it, lib/http/routes.ts), the session cookie named by {@link sessionCookieName}.
 */
export function providerCookies(issuer: string, keys: string[]): Configuration['cookies'] {
  const prefix = issuerPath(issuer);
  return {
    keys,
    long: { httpOnly: true, sameSite: 'lax', signed: true, path: prefix || '/' },
    short: { httpOnly: true, sameSite: 'lax', signed: true, path: prefix || '/' },
    names: { session: sessionCookieName(issuer) },
  };
}

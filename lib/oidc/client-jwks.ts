import { createPublicKey } from 'node:crypto';
import { createGuardedFetch, type GuardedFetch, type GuardedFetchOptions } from '../http/guarded-fetch.js';

/**
 * Curves of the keys oidc-provider keeps from a client's `jwks` (its CLIENT_JWK_REQUIREMENTS): keys of other
 * types or curves are ignored by it, so they are not checked here either.
 */
const KEPT_CURVES: Readonly<Record<string, ReadonlySet<string> | undefined>> = {
  EC: new Set(['P-256', 'P-384', 'P-521']),
  OKP: new Set(['Ed25519', 'X25519']),
};

/** RFC 7518 §3.3 and §4.3: RSA keys for RS256/PS256 and RSA-OAEP must have at least 2048 bits (jose enforces it). */
const MIN_RSA_BITS = 2048;

/**
 * What makes a key of an inline client `jwks` unusable, or `undefined` when every key oidc-provider would keep
 * can be imported by Node (and an RSA key has at least 2048 bits). oidc-provider checks only the members' shape, so a
 * key such as `{"kty":"RSA","n":"x","e":"AQAB"}` or an EC point off its curve was registered and then failed when
 * first used to encrypt a userinfo response or ID token, as `500 server_error`. Names the index, kty and Node's
 * error code only, never key material.
 *
 * @example unusableClientKey({ keys: [{ kty: 'EC', crv: 'P-256', x: 'AAAA', y: 'AAAA' }] })
 *   // 'jwks.keys[0] (EC) is not a usable public key (ERR_CRYPTO_INVALID_JWK)'
 */
export function unusableClientKey(jwks: unknown): string | undefined {
  const keys = (jwks as { keys?: unknown } | null | undefined)?.keys;
  if (!Array.isArray(keys)) return undefined;
  for (const [i, jwk] of keys.entries()) {
    const problem = unusableKey(jwk);
    if (problem) return `jwks.keys[${i}] ${problem}`;
  }
  return undefined;
}

/** What makes one key unusable (see {@link unusableClientKey}), or `undefined` (usable, or a key oidc-provider ignores). */
function unusableKey(jwk: unknown): string | undefined {
  if (!jwk || typeof jwk !== 'object') return undefined;
  const { kty, crv } = jwk as { kty?: unknown; crv?: unknown };
  if (kty !== 'RSA' && !(typeof kty === 'string' && KEPT_CURVES[kty]?.has(crv as string))) return undefined;
  let bits: number | undefined;
  try {
    bits = createPublicKey({ key: jwk as never, format: 'jwk' }).asymmetricKeyDetails?.modulusLength;
  } catch (err) {
    return `(${kty}) is not a usable public key (${(err as { code?: string }).code ?? 'not importable'})`;
  }
  if (kty === 'RSA' && (bits ?? 0) < MIN_RSA_BITS) {
    return `(RSA) has a ${bits ?? 0}-bit modulus; RSA keys need at least ${MIN_RSA_BITS} bits (RFC 7518 §3.3, §4.3)`;
  }
  return undefined;
}

/**
 * oidc-provider's outbound `fetch`: the guarded fetcher (lib/http/guarded-fetch.ts), and a JWK Set it fetches (a
 * client's `jwks_uri`: a 200 JSON object with a `keys` array) reaches oidc-provider without the keys
 * {@link unusableClientKey} would refuse inline. oidc-provider itself drops keys of a shape it does not support, but
 * kept these and failed when it first used one (a userinfo response or ID token encrypted to a 1-byte RSA modulus
 * answered `500 server_error`); without them it answers `400 invalid_client_metadata` ("no suitable key"), the
 * client's mistake. Other responses (request objects, sector identifier lists) pass unchanged.
 */
export function clientKeysFetch(options: GuardedFetchOptions): GuardedFetch {
  const fetch = createGuardedFetch(options);
  return async function fetchUsableKeys(url, init) {
    const response = await fetch(url, init);
    if ((init?.method ?? 'GET') !== 'GET' || response.status !== 200) return response;
    const text = await response.text();
    const init200 = { status: response.status, statusText: response.statusText, headers: new Headers(response.headers) };
    const jwks = parseJwks(text);
    const usable = jwks?.keys.filter((jwk) => !unusableKey(jwk));
    if (!jwks || usable!.length === jwks.keys.length) return new Response(text, init200);
    init200.headers.delete('content-length');
    return new Response(JSON.stringify({ ...jwks, keys: usable }), init200);
  };
}

/** `text` as a JWK Set (a JSON object with a `keys` array), or `undefined`. */
function parseJwks(text: string): { keys: unknown[] } | undefined {
  if (!text.startsWith('{')) return undefined;
  try {
    const value = JSON.parse(text) as { keys?: unknown };
    return Array.isArray(value?.keys) ? value as { keys: unknown[] } : undefined;
  } catch {
    return undefined;
  }
}

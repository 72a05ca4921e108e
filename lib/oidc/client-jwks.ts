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

/** JWK members that hold private or secret key material (RFC 7518 §6.2.2, §6.3.2, §6.4.1; RFC 8037 §2). */
const SECRET_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;

/**
 * What makes a key of an inline client `jwks` unusable, or `undefined` when every key oidc-provider would keep
 * can be imported by Node (and an RSA key has at least 2048 bits). oidc-provider checks only the members' shape, so a
 * key such as `{"kty":"RSA","n":"x","e":"AQAB"}` or an EC point off its curve was registered and then failed when
 * first used to encrypt a userinfo response or ID token, as `500 server_error`. A key with private or secret
 * material (a `d` member, a symmetric `oct` key) is refused too, by name: a client's keys are public, and its
 * private key belongs with the client alone (oidc-provider refused these as "client JSON Web Key Set is invalid",
 * without saying which key or why). Names the index, kty, member and Node's error code only, never key material.
 *
 * @example unusableClientKey({ keys: [{ kty: 'EC', crv: 'P-256', x: 'AAAA', y: 'AAAA' }] })
 *   // 'jwks.keys[0] (EC) is not a usable public key (ERR_CRYPTO_INVALID_JWK)'
 */
export function unusableClientKey(jwks: unknown): string | undefined {
  const keys = (jwks as { keys?: unknown } | null | undefined)?.keys;
  if (!Array.isArray(keys)) return undefined;
  for (const [i, jwk] of keys.entries()) {
    const problem = secretKeyMaterial(jwk) ?? unusableKey(jwk);
    if (problem) return `jwks.keys[${i}] ${problem}`;
  }
  return undefined;
}

/** Private or secret material in one key of a client's `jwks`, in words, or `undefined`. */
function secretKeyMaterial(jwk: unknown): string | undefined {
  if (!jwk || typeof jwk !== 'object') return undefined;
  const { kty } = jwk as { kty?: unknown };
  const label = typeof kty === 'string' ? `(${kty.slice(0, 8)}) ` : '';
  if (kty === 'oct')
    return `${label}is a symmetric key: a client's jwks holds public keys only (a shared secret is the client_secret)`;
  const member = SECRET_MEMBERS.find((m) => (jwk as Record<string, unknown>)[m] !== undefined);
  if (member)
    return (
      `${label}has the private key member "${member}": a client's jwks holds public keys only; keep the ` +
      `private key with the client`
    );
  return undefined;
}

/**
 * What makes one key unusable (see {@link unusableClientKey}), or `undefined` (usable, or a key oidc-provider ignores).
 */
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

/** What a key must be for a public-key key-management algorithm: its `kty`, its curves, the `key_ops` it may list. */
interface EncryptionKeyNeeds {
  kty: readonly string[];
  crv?: ReadonlySet<string>;
  keyOps: readonly string[];
}

/**
 * The needs of RSA-OAEP* (RFC 7518 §4.3) and ECDH-ES* (§4.6), or `undefined` for `dir` and `A*KW`, which use the
 * client secret. `keyOps` is what a key listing `key_ops` must list exactly: oidc-provider picks an RSA key only
 * with "encrypt", jose then needs "wrapKey", and WebCrypto refuses any other usage on import; an ECDH public key
 * has no usage at all.
 */
function encryptionKeyNeeds(alg: string): EncryptionKeyNeeds | undefined {
  if (alg.startsWith('RSA-OAEP')) return { kty: ['RSA'], keyOps: ['encrypt', 'wrapKey'] };
  if (alg.startsWith('ECDH-ES'))
    return { kty: ['EC', 'OKP'], crv: new Set(['P-256', 'P-384', 'P-521', 'X25519']), keyOps: [] };
  return undefined;
}

type Jwk = { kty?: unknown; crv?: unknown; alg?: unknown; use?: unknown; key_ops?: unknown };

/**
 * Why the inline `jwks` cannot encrypt responses with `member` = `alg`, or `undefined` when it can (or `alg` uses the
 * client secret, or the keys are not inline). It predicts what oidc-provider does at the first encrypted response
 * (its KeyStore `selectForEncrypt`): among the keys it keeps, those of the algorithm's `kty` with `alg` absent or
 * equal, `use` absent or "enc", and (RSA) `key_ops` absent or holding "encrypt"; a key naming `alg` or `use` first.
 * Without one every such response failed with `400 invalid_client_metadata` ("no suitable encryption key found");
 * with an unfit first one (an Ed25519 key for ECDH-ES, `key_ops` jose or WebCrypto refuse) with `500 server_error`.
 * Keys at a `jwks_uri` are fetched only when a response is encrypted and may change: they cannot be judged here.
 *
 * @example encryptionKeyProblem({ keys: [] }, 'userinfo_encrypted_response_alg', 'RSA-OAEP-256')
 *   // 'userinfo_encrypted_response_alg RSA-OAEP-256 needs a key in jwks to encrypt to, and none fits: …'
 */
export function encryptionKeyProblem(jwks: unknown, member: string, alg: string): string | undefined {
  const needs = encryptionKeyNeeds(alg);
  const keys = (jwks as { keys?: unknown } | null | undefined)?.keys;
  if (!needs || !Array.isArray(keys)) return undefined;
  const kept = keys
    .map((jwk, i) => [jwk as Jwk, i] as const)
    .filter(
      ([jwk]) =>
        jwk &&
        typeof jwk === 'object' &&
        !unusableKey(jwk) &&
        (jwk.kty === 'RSA' || (typeof jwk.kty === 'string' && KEPT_CURVES[jwk.kty]?.has(jwk.crv as string))),
    );
  const candidates = kept.filter(
    ([jwk]) =>
      needs.kty.includes(jwk.kty as string) &&
      (jwk.alg === undefined || jwk.alg === alg) &&
      (jwk.use === undefined || jwk.use === 'enc') &&
      !(jwk.kty === 'RSA' && Array.isArray(jwk.key_ops) && !jwk.key_ops.includes('encrypt')),
  );
  const score = ([jwk]: readonly [Jwk, number]) => Number(jwk.alg !== undefined) + Number(jwk.use !== undefined);
  const [chosen] = candidates.sort((a, b) => score(b) - score(a));
  const ops = JSON.stringify(needs.keyOps);
  if (!chosen) {
    const kinds = needs.crv
      ? `an EC (${[...needs.crv].filter((c) => c.startsWith('P')).join(', ')}) or OKP (X25519) key`
      : 'an RSA key';
    return (
      `${member} ${alg} needs a key in jwks to encrypt to, and none fits: ${kinds} with "use" absent or "enc", ` +
      `"alg" absent or "${alg}" and "key_ops" absent or ${ops}; responses encrypted with it would all fail`
    );
  }
  const [jwk, i] = chosen;
  const where = `jwks.keys[${i}] is the key ${member} ${alg} would encrypt to`;
  if (needs.crv && !needs.crv.has(jwk.crv as string))
    return (
      `${where}, but ${alg} cannot use a ${jwk.crv as string} key (mark it "use": "sig" if it signs); the key ` +
      `needs crv P-256, P-384, P-521 or X25519`
    );
  const keyOps = jwk.key_ops;
  if (
    Array.isArray(keyOps) &&
    (keyOps.length !== needs.keyOps.length || !needs.keyOps.every((op) => keyOps.includes(op)))
  ) {
    return `${where}, but its "key_ops" ${JSON.stringify(keyOps)} do not allow it; leave "key_ops" out or send ${ops}`;
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
    const init200 = {
      status: response.status,
      statusText: response.statusText,
      headers: new Headers(response.headers),
    };
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
    return Array.isArray(value?.keys) ? (value as { keys: unknown[] }) : undefined;
  } catch {
    return undefined;
  }
}

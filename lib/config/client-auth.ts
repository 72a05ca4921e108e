import { CLIENT_AUTH_SIGNING_ALGS } from '../../config/options.js';
import type { ClientConfig } from '../../config/types.js';
import { ConfigError } from '../core/errors.js';
import { unusableClientKey } from '../oidc/client-jwks.js';

/**
 * RFC 7518 §3.2: an HMAC key must be at least as long as the hash output; `client_secret_jwt` assertions are HS256
 * (see `CLIENT_AUTH_SIGNING_ALGS`), whose key is the client secret's UTF-8 bytes.
 */
export const MIN_HS256_SECRET_BYTES = 32;

/** The kind of public key that verifies each assertion algorithm (RFC 7518 §3.1, RFC 8037 §3.1). */
const KEY_OF_ALG: Readonly<Record<string, (jwk: Record<string, unknown>) => boolean>> = {
  RS256: (jwk) => jwk.kty === 'RSA',
  PS256: (jwk) => jwk.kty === 'RSA',
  ES256: (jwk) => jwk.kty === 'EC' && jwk.crv === 'P-256',
  Ed25519: (jwk) => jwk.kty === 'OKP' && jwk.crv === 'Ed25519',
  EdDSA: (jwk) => jwk.kty === 'OKP' && jwk.crv === 'Ed25519',
};

const SECRET_METHODS = new Set(['client_secret_basic', 'client_secret_post', 'client_secret_jwt']);

/** Whether some key of `keys` can verify an assertion signed with one of `algs` (and is not an encryption key). */
function verifiesOneOf(keys: ReadonlyArray<Record<string, unknown>>, algs: readonly string[]): boolean {
  return keys.some(
    (jwk) =>
      jwk.use !== 'enc' && algs.some((alg) => (jwk.alg === undefined || jwk.alg === alg) && KEY_OF_ALG[alg]!(jwk)),
  );
}

/**
 * Checks how configured client `i` authenticates at the token endpoint (RFC 7591 §2 `token_endpoint_auth_method`,
 * OIDC Core §9): the secret methods need a `client_secret` (for `client_secret_jwt` a 32-byte one, RFC 7518 §3.2),
 * `none` and `private_key_jwt` must not have one, `private_key_jwt` needs `jwks` or `jwks_uri` (not both) and, inline,
 * a key that can verify its assertions; `token_endpoint_auth_signing_alg` must fit the method. Whether inline keys
 * are public and usable is the registration policy's check (`unusableClientKey`), run by `loadConfig` after this.
 *
 * @throws {ConfigError} `ERR_CONFIG_INVALID` naming `clients[i].<member>`.
 */
export function checkClientAuthentication(client: ClientConfig, i: number): void {
  const at = (member: string) => `clients[${i}].${member}`;
  const method = client.token_endpoint_auth_method ?? 'client_secret_basic';
  if (method === 'none' && client.client_secret)
    throw new ConfigError(at('client_secret'), 'a public client (token_endpoint_auth_method "none") has no secret');
  if (method === 'private_key_jwt' && client.client_secret !== undefined) {
    throw new ConfigError(
      at('client_secret'),
      'a private_key_jwt client authenticates with its key pair, not a secret: remove client_secret',
    );
  }
  if (SECRET_METHODS.has(method) && !client.client_secret)
    throw new ConfigError(
      at('client_secret'),
      'is required for a confidential client (or set token_endpoint_auth_method to "none")',
    );
  if (method === 'client_secret_jwt' && Buffer.byteLength(client.client_secret!, 'utf8') < MIN_HS256_SECRET_BYTES) {
    throw new ConfigError(
      at('client_secret'),
      `client_secret_jwt uses the secret as an HS256 key, which must be at ` +
        `least ${MIN_HS256_SECRET_BYTES} bytes (256 bits, RFC 7518 §3.2): configure a longer random secret`,
    );
  }
  if (client.jwks !== undefined && client.jwks_uri !== undefined) {
    throw new ConfigError(
      at('jwks_uri'),
      "give the client's public keys either inline (jwks) or by URL (jwks_uri), not both",
    );
  }
  if (method === 'private_key_jwt' && client.jwks === undefined && client.jwks_uri === undefined) {
    throw new ConfigError(
      at('jwks'),
      'token_endpoint_auth_method "private_key_jwt" needs the client\'s public keys: set jwks (a JWK Set of ' +
        'public keys) or jwks_uri',
    );
  }
  const alg = client.token_endpoint_auth_signing_alg;
  const algs: readonly string[] | undefined =
    method === 'private_key_jwt' || method === 'client_secret_jwt' ? CLIENT_AUTH_SIGNING_ALGS[method] : undefined;
  if (alg !== undefined && !algs) {
    throw new ConfigError(
      at('token_endpoint_auth_signing_alg'),
      `is only read with token_endpoint_auth_method "private_key_jwt" or "client_secret_jwt" (this client ` +
        `uses "${method}"): remove it`,
    );
  }
  if (alg !== undefined && !algs!.includes(alg)) {
    throw new ConfigError(
      at('token_endpoint_auth_signing_alg'),
      `${alg} cannot be used with ${method}: use ${algs!.join(', ')}`,
    );
  }
  const keys = client.jwks?.keys;
  if (
    method === 'private_key_jwt' &&
    keys &&
    !unusableClientKey(client.jwks) &&
    !verifiesOneOf(keys, alg ? [alg] : algs!)
  ) {
    throw new ConfigError(
      at('jwks'),
      `has no public key that verifies ${alg ?? algs!.join(', ')} assertions (RSA for RS256 and PS256, EC ` +
        `P-256 for ES256, OKP Ed25519 for Ed25519 and EdDSA; without "use": "enc" and with no other "alg")`,
    );
  }
}

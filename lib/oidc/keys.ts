import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import type { PrivateJwks } from '../config/types.js';
import { privateJwksSchema } from '../config/schema.js';
import { ConfigError } from '../errors.js';

/** Algorithms `generateSigningKeys` can produce. RS256 is OpenID Connect's default (Core §15.1). */
export type SigningAlgorithm = 'RS256' | 'ES256' | 'EdDSA';

/** The algorithms of a generated key set: RS256 (the default ID token algorithm) plus ES256 and EdDSA. */
export const DEFAULT_SIGNING_ALGORITHMS: readonly SigningAlgorithm[] = Object.freeze(['RS256', 'ES256', 'EdDSA']);

/**
 * Generates a private JWKS with one signing key per algorithm, each with `kid` (RFC 7638 thumbprint),
 * `use: 'sig'` and `alg`. RSA keys are 2048-bit, EC keys P-256, EdDSA keys Ed25519. Keep the result secret;
 * share it between instances.
 *
 * @param algorithms @default ['RS256']
 * @example
 * ```ts
 * const jwks = await generateSigningKeys(['RS256', 'ES256']);
 * await createServer({ issuer, keys: { signing: jwks } });
 * ```
 */
export async function generateSigningKeys(algorithms: readonly SigningAlgorithm[] = ['RS256']): Promise<PrivateJwks> {
  const keys = [];
  for (const alg of algorithms) {
    const { privateKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'RS256' ? { modulusLength: 2048 } : {}) });
    const jwk = await exportJWK(privateKey);
    keys.push({ ...jwk, kid: await calculateJwkThumbprint(jwk), use: 'sig', alg });
  }
  return { keys };
}

/** A random cookie-signing secret (32 bytes, base64url). */
export function generateCookieKey(): string {
  return randomBytes(32).toString('base64url');
}

const validateJwks = new Ajv({ strict: false }).compile(privateJwksSchema);

/**
 * Reads a private JWKS from a JSON file (the value of `keys.signing` when it is a path, and of
 * `PORTCULLIS_SIGNING_KEYS` for the standalone server).
 *
 * @throws {ConfigError} at `keys.signing` when the file cannot be read, is not JSON, or is not a private JWKS.
 */
export function readSigningKeysFile(path: string): PrivateJwks {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ConfigError('keys.signing', `cannot read a JSON key set from ${path}: ${(err as Error).message}`);
  }
  if (!validateJwks(parsed)) {
    throw new ConfigError('keys.signing', `${path} is not a private JWKS ({"keys":[...]} with private keys of kty RSA, EC or OKP)`);
  }
  return parsed as unknown as PrivateJwks;
}

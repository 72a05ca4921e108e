import { randomBytes } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import type { PrivateJwks } from '../config/types.js';

/** Algorithms `generateSigningKeys` can produce. RS256 is OpenID Connect's default (Core §15.1). */
export type SigningAlgorithm = 'RS256' | 'ES256' | 'EdDSA';

/**
 * Generates a private JWKS with one signing key per algorithm, each with `kid`, `use: 'sig'` and `alg`.
 * Keep the result secret; share it between instances.
 *
 * @param algorithms @default ['RS256']
 */
export async function generateSigningKeys(algorithms: SigningAlgorithm[] = ['RS256']): Promise<PrivateJwks> {
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

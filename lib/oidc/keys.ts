import { createPrivateKey, randomBytes, type JsonWebKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import type { PrivateJwks } from '../../config/types.js';
import { privateJwksSchema } from '../../config/options.js';
import { ConfigError, jsonSyntaxErrorWithoutInput } from '../core/errors.js';

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
    const { privateKey } = await generateKeyPair(alg, {
      extractable: true,
      ...(alg === 'RS256' ? { modulusLength: 2048 } : {}),
    });
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

const NOT_A_JWKS = 'is not a private JWKS ({"keys":[...]} with private keys of kty RSA, EC or OKP)';
const SIGNING_KTY = ['RSA', 'EC', 'OKP'];

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Why `value` is not a private JWKS, in words that never quote key material (only indexes and a short `kty`); the
 * first thing found. Mirrors `privateJwksSchema`, which decides.
 */
function whyNotPrivateJwks(value: unknown): string {
  if (!isObject(value)) return 'it is not a JSON object';
  if (value.keys === undefined && 'kty' in value)
    return 'it is a single JWK: put it in a key set, {"keys":[<the JWK>]}';
  if (!Array.isArray(value.keys) || value.keys.length === 0) return 'it needs a non-empty "keys" array';
  for (const [i, key] of value.keys.entries()) {
    if (!isObject(key)) return `keys[${i}] is not a JWK object`;
    if (!SIGNING_KTY.includes(key.kty as string)) {
      const kty =
        key.kty === undefined
          ? 'no kty'
          : typeof key.kty === 'string' && /^[A-Za-z]{1,8}$/.test(key.kty)
            ? `kty ${JSON.stringify(key.kty)}`
            : 'another kty';
      return (
        `keys[${i}] has ${kty}, not RSA, EC or OKP (a symmetric "oct" key cannot sign tokens that clients ` +
        `verify with the published keys)`
      );
    }
    if (typeof key.d !== 'string')
      return (
        `keys[${i}] has no private part ("d"), so this is a public key set, which cannot sign: give the ` +
        `private one (\`npx portcullis keys\` makes one)`
      );
  }
  return 'it does not have the shape of one';
}

/**
 * Why a key set of the right shape cannot sign, or `undefined`: the first key that Node's `createPrivateKey` refuses
 * (an RSA key without its CRT members `p`, `q`, `dp`, `dq`, `qi`, an EC point not on the curve, an unknown curve).
 * oidc-provider refused such a key later with a plain Error ("jwks.keys[0].p configuration must be a non-empty
 * string") or not at all. Names the index, kty and Node's error code only, never key material.
 */
function whyUnusable(jwks: PrivateJwks): string | undefined {
  for (const [i, key] of jwks.keys.entries()) {
    try {
      createPrivateKey({ key: key as JsonWebKey, format: 'jwk' });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      return (
        `keys[${i}] (kty ${String(key.kty)}) is not a usable private key${code ? ` (${code})` : ''}: an RSA ` +
        `key needs n, e, d, p, q, dp, dq and qi, an EC or OKP key crv, x and d of that curve (\`npx portcullis ` +
        `keys\` makes a key set)`
      );
    }
  }
  return undefined;
}

/**
 * Checks a `keys.signing` given as an object (not a string) and returns it: the same rule, and the same kind of
 * message, as {@link readSigningKeys} applies to a file or inline JSON.
 *
 * @throws {ConfigError} at `keys.signing` naming what is wrong (a single JWK, a public key set, a key of another kty),
 *   never quoting key material.
 */
export function checkSigningKeys(value: unknown): PrivateJwks {
  if (!validateJwks(value))
    throw new ConfigError('keys.signing', `the object given ${NOT_A_JWKS}: ${whyNotPrivateJwks(value)}`);
  const unusable = whyUnusable(value as unknown as PrivateJwks);
  if (unusable) throw new ConfigError('keys.signing', `the object given ${NOT_A_JWKS}: ${unusable}`);
  return value as unknown as PrivateJwks;
}

/** Whether a `keys.signing` string is the key set itself rather than a path (JSON objects start with `{`). */
function isInlineJson(value: string): boolean {
  return value.trimStart().startsWith('{');
}

/**
 * Reads a private JWKS given as a string: the JSON key set itself (`{"keys":[...]}`), or the path of a JSON file
 * holding one. This is the value of `keys.signing` when it is a string, and of `PORTCULLIS_SIGNING_KEYS` for the
 * standalone server. Error messages never contain key material: JSON parser messages quote the input, so they
 * are replaced by the position of the error; a path is named, an inline key set never is.
 *
 * @throws {ConfigError} at `keys.signing` when the file cannot be read, the text is not JSON, or it is not a
 *   private JWKS.
 */
export function readSigningKeys(value: string): PrivateJwks {
  const inline = isInlineJson(value);
  const where = inline ? 'the inline key set' : `the file ${value}`;
  let text: string;
  if (inline) {
    text = value;
  } else {
    try {
      text = readFileSync(value, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new ConfigError(
        'keys.signing',
        `cannot read a JSON key set from ${where}${code ? ` (${code})` : ''}; give the path of a JWKS file ` +
          `(npx portcullis keys) or the key set itself`,
      );
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new ConfigError('keys.signing', `${where} is ${jsonSyntaxErrorWithoutInput(err)}`);
  }
  if (!validateJwks(parsed))
    throw new ConfigError('keys.signing', `${where} ${NOT_A_JWKS}: ${whyNotPrivateJwks(parsed)}`);
  const unusable = whyUnusable(parsed as unknown as PrivateJwks);
  if (unusable) throw new ConfigError('keys.signing', `${where} ${NOT_A_JWKS}: ${unusable}`);
  return parsed as unknown as PrivateJwks;
}

/** @deprecated Use {@link readSigningKeys}, which also accepts the key set itself. */
export const readSigningKeysFile = readSigningKeys;

import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { AccountSeed } from '../lib/core/account-store.js';
import { ConfigError } from '../lib/core/errors.js';
import { SCRYPT_COST, scryptCost, type ScryptCost } from '../lib/core/password-hash.js';

const KEY_LENGTH = 32;

function scrypt(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCb(password.normalize('NFKC'), salt, KEY_LENGTH, { ...options, maxmem: 256 * 1024 * 1024 }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

/**
 * Hashes a password with scrypt (memory-hard, node:crypto) at {@link SCRYPT_COST} (lib/core/password-hash.ts says
 * why N=2^15). Format: `scrypt$N$r$p$salt$hash` (base64url parts).
 */
export function hashPassword(password: string): Promise<string> {
  return hashPasswordAtCost(password, SCRYPT_COST);
}

/**
 * {@link hashPassword} at another `cost` (not exported by the package: the test helpers seed the demo accounts with
 * cheaper hashes, which only development accepts).
 */
export async function hashPasswordAtCost(password: string, cost: Readonly<ScryptCost>): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, cost);
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/**
 * Constant-time check of `password` against a {@link hashPassword} result, with the cost the hash names. Malformed
 * hashes, and hashes whose cost is out of bounds (`scryptCost` of lib/core/password-hash.ts), never match.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const cost = scryptCost(stored);
  if (!cost) return false;
  const [, , , , salt, hash] = stored.split('$') as [string, string, string, string, string, string];
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scrypt(password, Buffer.from(salt, 'base64url'), cost);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * The stored hash of a seed account: its `passwordHash` as given (already checked by the option schema), else a
 * new hash of its `password`. Throws a `ConfigError` (`ERR_CONFIG_INVALID`) for a seed with neither.
 */
export async function seedPasswordHash(seed: AccountSeed): Promise<string> {
  if (seed.passwordHash !== undefined) return seed.passwordHash;
  if (seed.password === undefined) throw new ConfigError('accounts[].password', 'or passwordHash is required');
  return hashPassword(seed.password);
}

let dummyHash: Promise<string> | undefined;
/** Spends the same work as a real check, so that an unknown account cannot be told apart by timing. */
export async function burnPasswordCheck(password: string): Promise<void> {
  dummyHash ??= hashPassword('portcullis-dummy-password');
  await verifyPassword(password, await dummyHash);
}

import { createHash, randomBytes } from 'node:crypto';
import type { Account, AccountSeed, NewAccount } from '../lib/core/account-store.js';
import { canonicalEmail } from '../lib/core/email-address.js';
import { PortcullisError } from '../lib/core/errors.js';
import { burnPasswordCheck, verifyPassword } from './password.js';

/** Shared by the account stores: how records are built, whatever they are kept in. */

/** Claims that are computed from the account itself, never taken from seed or sign-up `claims`. */
const RESERVED_CLAIMS = new Set(['sub', 'email', 'email_verified']);

/**
 * Subject of a seed account without an `id`: stable for the same address (hashed in its canonical form, which for
 * the ASCII addresses the `accounts` option accepts is the lower-cased address hashed before), so every instance
 * agrees.
 */
export function subjectFor(email: string): string {
  return createHash('sha256')
    .update(`portcullis:${seedKey(email)}`)
    .digest('base64url')
    .slice(0, 22);
}

/**
 * The canonical form of a seed account's address (`canonicalEmail`).
 * @throws PortcullisError `ERR_INVALID_ARGUMENT` when it is not an accepted address (`loadConfig` refuses such a
 *   seed first, naming `accounts[i].email`; this guards stores seeded directly).
 */
export function seedKey(email: string): string {
  const key = canonicalEmail(email);
  if (key === undefined)
    throw new PortcullisError(
      'ERR_INVALID_ARGUMENT',
      `seed account address ${JSON.stringify(email)} is not an accepted e-mail address`,
    );
  return key;
}

/** Subject of a signed-up account: random, so it neither changes nor leaks when the address does. */
export function newSubject(): string {
  return randomBytes(16).toString('base64url');
}

export function cleanClaims(claims: Record<string, unknown> | undefined): Record<string, unknown> {
  return Object.fromEntries(Object.entries(claims ?? {}).filter(([k]) => !RESERVED_CLAIMS.has(k)));
}

/** Epoch seconds, the unit of `updated_at` (OIDC Core §5.1). */
export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

export function freezeAccount(account: Account): Account {
  return Object.freeze({
    ...account,
    roles: Object.freeze([...account.roles]),
    claims: Object.freeze({ ...account.claims }),
  });
}

/** The account record of a seed account (its password is hashed separately). */
export function accountFromSeed(seed: AccountSeed): Account {
  return freezeAccount({
    id: seed.id ?? subjectFor(seed.email),
    email: seed.email,
    emailVerified: seed.email_verified ?? false,
    roles: seed.roles ?? [],
    claims: cleanClaims(seed.claims),
  });
}

/** The record of a signed-up account: unverified, no roles, a random subject, `updated_at` now. */
export function newAccountRecord(input: NewAccount): Account {
  return freezeAccount({
    id: newSubject(),
    email: input.email,
    emailVerified: false,
    roles: [],
    claims: { ...cleanClaims(input.claims), updated_at: nowSeconds() },
  });
}

/**
 * The password check of every store: the account when `password` matches its hash, `undefined` otherwise; an
 * unknown account costs the same hashing work, so timing does not tell whether the address exists.
 */
export async function checkPassword(
  stored: { account: Account; passwordHash: string } | undefined,
  password: string,
): Promise<Account | undefined> {
  if (!stored) {
    await burnPasswordCheck(password);
    return undefined;
  }
  return (await verifyPassword(password, stored.passwordHash)) ? stored.account : undefined;
}

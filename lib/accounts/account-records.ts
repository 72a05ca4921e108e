import { createHash, randomBytes } from 'node:crypto';
import type { SeedAccount } from '../config/types.js';
import type { Account } from './account-store.js';

/** Shared by the account stores: how records are built, whatever they are kept in. */

/** Claims that are computed from the account itself, never taken from seed or sign-up `claims`. */
const RESERVED_CLAIMS = new Set(['sub', 'email', 'email_verified']);

/** Subject of a seed account without an `id`: stable for the same address, so every instance agrees. */
export function subjectFor(email: string): string {
  return createHash('sha256').update(`portcullis:${email.toLowerCase()}`).digest('base64url').slice(0, 22);
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
  return Object.freeze({ ...account, roles: Object.freeze([...account.roles]), claims: Object.freeze({ ...account.claims }) });
}

/** The account record of a seed account (its password is hashed separately). */
export function accountFromSeed(seed: SeedAccount): Account {
  return freezeAccount({
    id: seed.id ?? subjectFor(seed.email),
    email: seed.email,
    emailVerified: seed.email_verified ?? false,
    roles: seed.roles ?? [],
    claims: cleanClaims(seed.claims),
  });
}

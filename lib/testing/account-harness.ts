import type { AccountSeed, AccountStore } from '../core/account-store.js';
import type { FixtureCase } from './cases.js';

/**
 * What the account-store suite gets from your `make(seed)` for each case: a store holding the seed accounts, and
 * optionally `close` (called after the case) and `leaveIndexEntry`.
 */
export interface AccountStoreHarness {
  store: AccountStore;
  /** Releases what `make` opened (a connection, a temporary database); called after every case, passed or not. */
  close?(): Promise<void>;
  /**
   * Writes the e-mail index entry of `email` (its `canonicalEmail`) naming account `id`, as a sign-up or e-mail
   * change cut off between its writes would leave it behind (`id` may name no account, or one with another
   * address). Leave it out when the store writes account and index in one step (a transaction, a unique column):
   * such a store cannot have a stale entry, and the cases about one then check plain sign-ups.
   */
  leaveIndexEntry?(email: string, id: string): Promise<void>;
}

/** The seed every case's store holds: alice (`alice-demo-password`, verified), given by `passwordHash`. */
export const CONFORMANCE_SEED: readonly AccountSeed[] = Object.freeze([
  {
    id: 'alice',
    email: 'alice@example.com',
    passwordHash: 'scrypt$32768$8$1$gFiOW08Jopgu5mJt0XmhLg$S4ce0MeX_7NTsWK43hAknYCQFR7sBVU_U9YWVXoRlow',
    email_verified: true,
    claims: { given_name: 'Alice', family_name: 'Liddell', name: 'Alice Liddell' },
  },
]);

/** The other form of seed, given by a clear `password` the store hashes (`seeded-clear-password`, unverified). */
export const CLEAR_PASSWORD_SEED: AccountSeed = Object.freeze({
  id: 'seeded',
  email: 'seeded@example.com',
  password: 'seeded-clear-password',
});

/** The fixture of an account-store case: the harness with `leaveIndexEntry` always callable. */
export interface AccountFixture {
  store: AccountStore;
  leaveIndexEntry(email: string, id: string): Promise<void>;
}

export type AccountCase = FixtureCase<AccountFixture>;

import {
  CLEAR_PASSWORD_SEED,
  CONFORMANCE_SEED,
  type AccountCase,
  type AccountFixture,
  type AccountStoreHarness,
} from './account-harness.js';
import { accountCases, accountUpdateCase, clearPasswordSeedCase, staleIndexCases } from './account-store-cases.js';
import { grouped, onFreshFixture, type ConformanceCase } from './cases.js';
import { passkeyCases } from './passkey-cases.js';
import { secondFactorCase, updateSecondFactorCases } from './second-factor-cases.js';
import type { AccountSeed } from '../core/account-store.js';

/** Which optional {@link AccountStore} methods the suite checks; each defaults to `true`. */
export interface AccountStoreConformanceOptions {
  /** `getSecondFactor` / `setSecondFactor`: needed when `mfa` is on (the default). */
  secondFactor?: boolean;
  /** `updateSecondFactor` (implies `secondFactor`): optional, but without it every second-factor write takes a lock. */
  updateSecondFactor?: boolean;
  /** `listPasskeys`, `savePasskey`, `deletePasskey`, `findAccountByPasskey`: needed when `passkeys.enabled` is on. */
  passkeys?: boolean;
}

/**
 * The account-store conformance suite: what Portcullis asks of an {@link AccountStore} (see its TSDoc): look-ups by
 * id and by every spelling of one mailbox (`canonicalEmail`), hashed passwords, `create` refusing a taken address
 * (also when four sign-ups race), `setEmail` / `setPassword` / `markEmailVerified`, an e-mail index entry left by an
 * interrupted write not locking the address, and the optional second-factor (atomic `updateSecondFactor`
 * included) and passkey methods. The memory and Redis account stores run it in Portcullis' own tests.
 *
 * Each case calls `make(CONFORMANCE_SEED)` for a store holding the seed accounts and nothing else of other cases
 * (a fresh database, schema or key prefix), and the harness' `close()` at the end; the first case's seed also has
 * `CLEAR_PASSWORD_SEED`, an account given by a clear `password` the store must hash.
 * @param make returns a harness: the store, and optionally `close` and `leaveIndexEntry` ({@link AccountStoreHarness}).
 * @param options the optional methods to leave out (all checked by default; a case for a method the store lacks
 *   fails naming it).
 * @returns the cases, in order: register each with your test runner, e.g. `for (const c of cases) test(c.name, c.run)`.
 * @example
 * ```ts
 * import { test } from 'node:test'; // or jest's / vitest's `test`
 * import { accountStoreConformance } from 'portcullis/testing';
 * const make = async (seed) => ({ store: await MyStore.fromSeed(seed) });
 * const cases = accountStoreConformance(make, { passkeys: false });
 * for (const c of cases) test(c.name, c.run);
 * ```
 */
export function accountStoreConformance(
  make: (seed: readonly AccountSeed[]) => AccountStoreHarness | Promise<AccountStoreHarness>,
  options: AccountStoreConformanceOptions = {},
): ConformanceCase[] {
  const { secondFactor = true, updateSecondFactor = secondFactor, passkeys = true } = options;
  const cases: AccountCase[] = [...accountCases, ...staleIndexCases, accountUpdateCase];
  if (secondFactor) cases.push(secondFactorCase);
  if (updateSecondFactor) {
    cases.push(...grouped('updateSecondFactor: atomic changes of the second factors', updateSecondFactorCases));
  }
  if (passkeys) cases.push(...grouped('passkeys', passkeyCases));
  const closers = new WeakMap<AccountFixture, () => Promise<void>>();
  const opener = (seed: readonly AccountSeed[]) => async () => {
    const harness = await make(seed);
    const leaveIndexEntry = harness.leaveIndexEntry?.bind(harness) ?? (async () => {});
    const fixture = { store: harness.store, leaveIndexEntry };
    closers.set(fixture, async () => {
      await harness.close?.();
    });
    return fixture;
  };
  const close = (fixture: AccountFixture) => closers.get(fixture)!();
  // One case seeds a clear password too (each store hashes it, about 70 ms); the others seed alice's hash only.
  return [
    ...onFreshFixture([clearPasswordSeedCase], opener([...CONFORMANCE_SEED, CLEAR_PASSWORD_SEED]), close),
    ...onFreshFixture(cases, opener(CONFORMANCE_SEED), close),
  ];
}

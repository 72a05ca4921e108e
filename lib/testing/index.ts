/**
 * `portcullis/testing`: the conformance suites Portcullis runs against its own storages and account stores, for
 * testing your own {@link Storage} (`storage: { type: 'custom', instance }`) or {@link AccountStore}
 * (`accountStore`) the same way. Each suite is a list of {@link ConformanceCase}s (a name and an async `run()` that
 * throws an `AssertionError` of `node:assert` on a broken contract), so it depends on no test framework: register
 * the cases with the one you use. See `docs/guides/custom-storage.md`.
 * @example
 * ```ts
 * import { describe, test } from 'node:test'; // jest: the globals; vitest: import { describe, test } from 'vitest'
 * import { accountStoreConformance, storageConformance } from 'portcullis/testing';
 *
 * describe('my storage', () => {
 *   for (const c of storageConformance(() => new MyStorage())) test(c.name, c.run);
 * });
 * describe('my account store', () => {
 *   const cases = accountStoreConformance(async (seed) => ({ store: await MyStore.fromSeed(seed) }));
 *   for (const c of cases) test(c.name, c.run);
 * });
 * ```
 * @packageDocumentation
 */
export type { ConformanceCase } from './cases.js';
export { storageConformance } from './storage-cases.js';
export { accountStoreConformance, type AccountStoreConformanceOptions } from './account-store-suite.js';
export { CLEAR_PASSWORD_SEED, CONFORMANCE_SEED, type AccountStoreHarness } from './account-harness.js';
export type { Storage } from '../core/storage.js';
export type { AccountSeed, AccountStore } from '../core/account-store.js';

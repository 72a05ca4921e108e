/**
 * Portcullis' conformance suites under node:test, as docs/guides/custom-storage.md shows them: put your storage in
 * `makeStorage` and run `node --test` on the compiled file (here `npm run build`, then
 * `node --test dist/examples/custom-storage/conformance.test.js`). The memory storage stands in for yours;
 * test/examples/custom-storage.test.ts runs this file.
 */
import { describe, test } from 'node:test';
import { MemoryStorage } from 'portcullis';
import { accountStoreConformance, storageConformance } from 'portcullis/testing';

/** A new storage for each case: empty, or with a key prefix (a schema, a database) no other case uses. */
const makeStorage = () => new MemoryStorage();

describe('my storage', () => {
  for (const c of storageConformance(makeStorage)) test(c.name, c.run);
});

// The account store the storage builds (Storage.accountStore): the suite hands over the seed accounts it expects.
describe('the account store of my storage', () => {
  const cases = accountStoreConformance(async (seed) => {
    const storage = makeStorage();
    return { store: await storage.accountStore(seed), close: () => storage.close() };
  });
  for (const c of cases) test(c.name, c.run);
});

import { MemoryAccountStore } from '../../adapters/memory-account-store.js';
import { RedisAccountStore } from '../../adapters/redis-account-store.js';
import { RedisStorage } from '../../adapters/redis.js';
import { canonicalEmail } from '../../lib/core/email-address.js';
import { accountStoreConformance } from '../../lib/testing/index.js';
import { deletePrefix, REDIS_URL, redisAvailable, uniquePrefix } from '../helpers/redis.js';

const available = await redisAvailable();

// The exported suite, registered as a host registers it (docs/guides/custom-storage.md).
// The memory store changes record and index in one synchronous step: it cannot be left with a stale entry, so it
// has no leaveIndexEntry.
describe('memory account store', () => {
  const cases = accountStoreConformance(async (seed) => ({ store: await MemoryAccountStore.fromSeed(seed) }));
  for (const c of cases) test(c.name, c.run);
});

if (available) {
  describe('redis account store', () => {
    const cases = accountStoreConformance(async (seed) => {
      const keyPrefix = uniquePrefix('accounts');
      const storage = new RedisStorage({ url: REDIS_URL, keyPrefix });
      return {
        store: await RedisAccountStore.fromSeed(storage, seed),
        close: async () => {
          await storage.close();
          await deletePrefix(keyPrefix);
        },
        leaveIndexEntry: async (email, id) => {
          await storage.client.set(`${keyPrefix}AccountEmail:{${canonicalEmail(email)}}`, id);
        },
      };
    });
    for (const c of cases) test(c.name, c.run);
  });
} else {
  test('redis account store tests need Redis (see the warning above)', () => expect(available).toBe(false));
}

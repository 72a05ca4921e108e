import { MemoryAccountStore } from '../../adapters/memory-account-store.js';
import { RedisAccountStore } from '../../adapters/redis-account-store.js';
import { RedisStorage } from '../../adapters/redis.js';
import { canonicalEmail } from '../../lib/core/email-address.js';
import { demoFixtures } from '../../examples/demo-fixtures.js';
import { accountStoreConformance } from './store-conformance.js';
import { deletePrefix, REDIS_URL, redisAvailable, uniquePrefix } from '../helpers/redis.js';

const seed = demoFixtures().accounts!;
const available = await redisAvailable();

// The memory store changes record and index in one synchronous step: it cannot be left with a stale entry.
accountStoreConformance('memory', async () => ({ store: await MemoryAccountStore.fromSeed(seed), close: async () => {}, leaveIndexEntry: async () => {} }));

if (available) {
  accountStoreConformance('redis', async () => {
    const keyPrefix = uniquePrefix('accounts');
    const storage = new RedisStorage({ url: REDIS_URL, keyPrefix });
    return {
      store: await RedisAccountStore.fromSeed(storage, seed),
      close: async () => { await storage.close(); await deletePrefix(keyPrefix); },
      leaveIndexEntry: async (email, id) => { await storage.client.set(`${keyPrefix}AccountEmail:{${canonicalEmail(email)}}`, id); },
    };
  });
} else {
  test('redis account store tests need Redis (see the warning above)', () => expect(available).toBe(false));
}

import { MemoryStorage } from '../adapters/memory.js';
import type { ResolvedConfig } from '../config/types.js';
import type { Storage } from './core/storage.js';

/** The storage a server uses, and whether the server opened it (and so closes it). */
export interface OpenedStorage {
  storage: Storage;
  /** `false` for a host's own instance (`storage.type: 'custom'`): the host closes it. */
  owned: boolean;
}

/**
 * Builds the configured storage. For Redis it waits for the first connection (5 s at most) and checks the
 * database index; on failure a client it created is disconnected before it throws, so a failed start-up leaves
 * nothing that keeps the process alive. A host's own instance (`type: 'custom'`) is used as it is.
 * @throws {StorageConnectError} `ERR_STORAGE_UNAVAILABLE` naming the URL (password redacted) and the reason:
 *   connection refused, DNS lookup failed, authentication failed (WRONGPASS / NOAUTH), timed out, not Redis.
 * @throws {ConfigError} `storage.url` when the URL's database index does not exist on the server.
 */
export async function createStorage(config: ResolvedConfig['storage']): Promise<OpenedStorage> {
  if (config.type === 'custom') return { storage: config.instance!, owned: false };
  if (config.type === 'redis') {
    // Imported here, not at the top: ioredis costs ~70-90 ms of CPU to load, which a server on memory storage (and
    // every process that only imports Portcullis) paid for nothing.
    const { RedisStorage } = await import('../adapters/redis.js');
    const storage = new RedisStorage({ url: config.url, client: config.client, keyPrefix: config.keyPrefix });
    await storage.connect();
    return { storage, owned: true };
  }
  return { storage: new MemoryStorage({ maxEntries: config.maxEntries }), owned: true };
}

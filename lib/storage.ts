import { MemoryStorage } from '../adapters/memory.js';
import { RedisStorage } from '../adapters/redis.js';
import type { Storage } from './core/storage.js';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import type { ResolvedConfig } from '../config/types.js';
import { memoryLimiterBackend, type LimiterBackend } from './core/limiter.js';

/** The storage a server uses and the matching rate-limit backend (counters live where the tokens live). */
export interface StorageBundle {
  storage: Storage;
  limiterBackend: LimiterBackend;
}

/**
 * Builds the configured storage. For Redis it waits for the first connection (5 s at most) and checks the
 * database index; on failure a client it created is disconnected before it throws, so a failed start-up leaves
 * nothing that keeps the process alive.
 * @throws {StorageConnectError} `ERR_STORAGE_UNAVAILABLE` naming the URL (password redacted) and the reason:
 *   connection refused, DNS lookup failed, authentication failed (WRONGPASS / NOAUTH), timed out, not Redis.
 * @throws {ConfigError} `storage.url` when the URL's database index does not exist on the server.
 */
export async function createStorage(config: ResolvedConfig['storage']): Promise<StorageBundle> {
  if (config.type === 'redis') {
    const storage = new RedisStorage({ url: config.url, client: config.client, keyPrefix: config.keyPrefix });
    await storage.connect();
    const limiterBackend: LimiterBackend = (name, spec) => new RateLimiterRedis({
      storeClient: storage.client,
      keyPrefix: `${config.keyPrefix}rl:${name}`,
      points: spec.points,
      duration: spec.durationSeconds,
    });
    return { storage, limiterBackend };
  }
  return { storage: new MemoryStorage({ maxEntries: config.maxEntries }), limiterBackend: memoryLimiterBackend };
}

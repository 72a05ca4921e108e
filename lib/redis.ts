/**
 * `portcullis/redis`: storage and account store on Redis (ioredis), for production and several instances.
 * `createServer` opens the Redis storage itself from `storage: { type: 'redis', url }`
 * (`redis://[:password@]host:port[/db]`,
 * `rediss://…`), or from `storage: { type: 'redis', client }` with an ioredis client you own (Sentinel, Cluster, a
 * connection shared with your app). Build a {@link RedisStorage} yourself to use it outside the server, or to pass it
 * in as `storage: { type: 'custom', instance }` (yours to open with `await storage.connect()` and to close).
 * @example
 * ```ts
 * await createServer({ issuer, storage: { type: 'redis', url: process.env.REDIS_URL } });
 * ```
 * @packageDocumentation
 */
export { RedisStorage, failFastRedisOptions, type RedisClient, type RedisStorageOptions } from '../adapters/redis.js';
export { RedisAccountStore } from '../adapters/redis-account-store.js';

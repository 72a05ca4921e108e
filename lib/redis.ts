/**
 * `portcullis/redis`: storage and account store on Redis (ioredis), for production and several instances.
 * Pass `storage: { redisUrl }` to `createServer`, or build a {@link RedisStorage} yourself to share a client.
 * @packageDocumentation
 */
export { RedisStorage, failFastRedisOptions, type RedisClient, type RedisStorageOptions } from '../adapters/redis.js';
export { RedisAccountStore } from '../adapters/redis-account-store.js';

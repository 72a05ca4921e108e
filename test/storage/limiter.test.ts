import { createLimiter } from '../../lib/core/limiter.js';
import { createStorage } from '../../lib/storage.js';
import { loadConfig } from '../../lib/config/load.js';
import { deletePrefix, REDIS_URL, redisAvailable, uniquePrefix } from '../helpers/redis.js';
import { suiteIf } from '../helpers/skip.js';

const available = await redisAvailable();

async function bundle(keyPrefix: string) {
  const config = loadConfig(
    { issuer: 'http://localhost:1', storage: { type: 'redis', url: REDIS_URL, keyPrefix } },
    {},
  );
  return createStorage(config.storage);
}

suiteIf(available, 'no Redis at REDIS_URL')('rate-limit counters in Redis', () => {
  test('two instances share one budget; refusal says when to retry; reset clears it', async () => {
    const keyPrefix = uniquePrefix('limits');
    const [a, b] = [await bundle(keyPrefix), await bundle(keyPrefix)];
    try {
      const spec = { points: 3, durationSeconds: 60 };
      const atA = createLimiter('login-ip', spec, a.storage.limiterBackend());
      const atB = createLimiter('login-ip', spec, b.storage.limiterBackend());
      expect((await atA.consume('198.51.100.7')).allowed).toBe(true);
      expect((await atB.consume('198.51.100.7')).allowed).toBe(true);
      expect((await atA.consume('198.51.100.7')).allowed).toBe(true);
      const refused = await atB.consume('198.51.100.7');
      expect(refused).toMatchObject({ allowed: false, remaining: 0 });
      expect(refused.retryAfterSeconds).toBeGreaterThan(0);
      expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60);
      expect((await atA.consume('203.0.113.9')).allowed).toBe(true); // another key has its own budget
      await atA.reset('198.51.100.7');
      expect((await atB.consume('198.51.100.7')).allowed).toBe(true);
    } finally {
      await a.storage.close();
      await b.storage.close();
      await deletePrefix(keyPrefix);
    }
  });
});

if (!available) test('limiter tests need Redis (see the warning above)', () => expect(available).toBe(false));

import { RedisStorage } from '../../adapters/redis.js';
import { storageConformance } from '../../lib/testing/index.js';
import { deletePrefix, REDIS_URL, redisAvailable, uniquePrefix } from '../helpers/redis.js';

const available = await redisAvailable();
const prefixes: string[] = [];
afterAll(async () => {
  if (available) for (const p of prefixes) await deletePrefix(p);
});

if (available) {
  describe('redis storage: oidc-provider adapter contract', () => {
    const cases = storageConformance(() => {
      const keyPrefix = uniquePrefix('conformance');
      prefixes.push(keyPrefix);
      return new RedisStorage({ url: REDIS_URL, keyPrefix });
    });
    for (const c of cases) test(c.name, c.run);
  });

  describe('redis storage specifics', () => {
    test('keys carry the prefix, expire with the entry and use cluster hash tags', async () => {
      const keyPrefix = uniquePrefix('keys');
      prefixes.push(keyPrefix);
      const storage = new RedisStorage({ url: REDIS_URL, keyPrefix });
      try {
        await storage.adapter('AuthorizationCode').upsert('abc', { uid: 'u1', grantId: 'g1' }, 30);
        const client = storage.client;
        expect(await client.ttl(`${keyPrefix}AuthorizationCode:{abc}`)).toBeGreaterThan(25);
        expect(await client.ttl(`${keyPrefix}AuthorizationCode:uid:{u1}`)).toBeGreaterThan(25);
        expect(await client.smembers(`${keyPrefix}grant:{g1}`)).toEqual([`${keyPrefix}AuthorizationCode:{abc}`]);
        expect(await client.ttl(`${keyPrefix}grant:{g1}`)).toBeGreaterThan(25);
        // A longer-lived member extends the grant set; a shorter one never shortens it.
        await storage.adapter('RefreshToken').upsert('rt', { grantId: 'g1' }, 3000);
        await storage.adapter('AccessToken').upsert('at', { grantId: 'g1' }, 10);
        expect(await client.ttl(`${keyPrefix}grant:{g1}`)).toBeGreaterThan(2900);
      } finally {
        await storage.close();
      }
    });

    test('revokeByGrantId spares an Interaction that an older version put in the grant set', async () => {
      const keyPrefix = uniquePrefix('legacy-grant');
      prefixes.push(keyPrefix);
      const storage = new RedisStorage({ url: REDIS_URL, keyPrefix });
      try {
        await storage.adapter('Interaction').upsert('i1', { uid: 'iu', grantId: 'g' }, 60);
        await storage.adapter('AccessToken').upsert('a1', { grantId: 'g' }, 60);
        expect(await storage.client.smembers(`${keyPrefix}grant:{g}`)).toEqual([`${keyPrefix}AccessToken:{a1}`]);
        await storage.client.sadd(`${keyPrefix}grant:{g}`, `${keyPrefix}Interaction:{i1}`);
        await storage.adapter('AccessToken').revokeByGrantId('g');
        expect(await storage.adapter('AccessToken').find('a1')).toBeUndefined();
        expect(await storage.adapter('Interaction').find('i1')).toMatchObject({ uid: 'iu', grantId: 'g' });
        expect(await storage.client.exists(`${keyPrefix}grant:{g}`)).toBe(0);
      } finally {
        await storage.close();
      }
    });

    test('scripts run as EVALSHA (the script text is not resent) and reload themselves after SCRIPT FLUSH', async () => {
      const keyPrefix = uniquePrefix('evalsha');
      prefixes.push(keyPrefix);
      const storage = new RedisStorage({ url: REDIS_URL, keyPrefix });
      const sent: string[] = [];
      try {
        await storage.ready();
        const original = storage.client.sendCommand.bind(storage.client);
        storage.client.sendCommand = ((command: { name: string }, ...rest: unknown[]) => {
          sent.push(command.name);
          return original(command as never, ...(rest as []));
        }) as typeof storage.client.sendCommand;
        await storage.adapter('Session').upsert('s1', { uid: 'su1', accountId: 'a' }, 60);
        sent.length = 0;
        await storage.adapter('Session').upsert('s1', { uid: 'su1', accountId: 'b' }, 60);
        expect(sent).toEqual(['evalsha']);
        await storage.client.script('FLUSH');
        sent.length = 0;
        await storage.adapter('Session').upsert('s1', { uid: 'su1', accountId: 'c' }, 60);
        expect(sent).toEqual(['evalsha', 'eval']);
        expect(await storage.adapter('Session').findByUid('su1')).toMatchObject({ accountId: 'c' });
      } finally {
        await storage.close();
      }
    });

    test('a payload survives the JSON round trip exactly (arrays, nested objects, numbers)', async () => {
      const keyPrefix = uniquePrefix('json');
      prefixes.push(keyPrefix);
      const storage = new RedisStorage({ url: REDIS_URL, keyPrefix });
      try {
        const payload = { jti: 'x', scopes: [], claims: { a: [1, 2], b: {} }, n: 1.5, s: 'ü', consumed: undefined };
        await storage.adapter('Grant').upsert('x', payload, 60);
        await storage.adapter('Grant').upsert('x', { ...payload, uid: 'changed' }, 60);
        expect(await storage.adapter('Grant').find('x')).toEqual({
          jti: 'x',
          scopes: [],
          claims: { a: [1, 2], b: {} },
          n: 1.5,
          s: 'ü',
          uid: 'changed',
        });
      } finally {
        await storage.close();
      }
    });

    test('a client passed in is used and not closed by close()', async () => {
      const { Redis } = await import('ioredis');
      const client = new Redis(REDIS_URL);
      const keyPrefix = uniquePrefix('owned');
      prefixes.push(keyPrefix);
      const storage = new RedisStorage({ client, keyPrefix });
      await storage.adapter('Session').upsert('s', { a: 1 }, 60);
      await storage.close();
      expect(await client.ping()).toBe('PONG');
      client.disconnect();
    });

    test('a client passed in to many storages, each closed, keeps no listener of theirs (no MaxListeners warning)', async () => {
      const { Redis } = await import('ioredis');
      const client = new Redis(REDIS_URL);
      const before = client.listenerCount('error');
      try {
        for (let i = 0; i < 15; i++) {
          const storage = new RedisStorage({ client, keyPrefix: uniquePrefix('shared') });
          expect(client.listenerCount('error')).toBe(before + 1);
          await storage.close();
        }
        expect(client.listenerCount('error')).toBe(before);
      } finally {
        client.disconnect();
      }
    });
  });
} else {
  test('redis tests need a running Redis (see the warning above)', () => {
    expect(available).toBe(false);
  });
}

import { Redis } from 'ioredis';
import { MemoryStorage } from '../../adapters/memory.js';
import type { PortcullisConfig } from '../../lib/index.js';
import { register, WEB_CLIENT } from '../helpers/registration.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { deletePrefix, REDIS_URL, redisAvailable, uniquePrefix } from '../helpers/redis.js';

/**
 * `registration.initialAccessToken` across restarts on storage that outlives the process: only the token the
 * running configuration names works (and minted ones). Releases before this one wrote the configured token to
 * storage at every start, without expiry, and never removed it: a replaced or removed token kept registering.
 */

const OLD = 'old-initial-access-token-value-0001';
const NEW = 'new-initial-access-token-value-0002';
const available = await redisAvailable();

interface Kind {
  storage(): PortcullisConfig['storage'];
  /** Storage keys (Redis) or entries holding `value`; `undefined` when the kind cannot tell. */
  stored(value: string): Promise<number | undefined>;
  cleanup(): Promise<void>;
}

function redisKind(): Kind {
  const keyPrefix = uniquePrefix('iat-rotation');
  return {
    storage: () => ({ type: 'redis', url: REDIS_URL, keyPrefix }),
    async stored(value) {
      const client = new Redis(REDIS_URL);
      try {
        let cursor = '0';
        let count = 0;
        do {
          const [next, keys] = await client.scan(cursor, 'MATCH', `${keyPrefix}*${value}*`, 'COUNT', 500);
          cursor = next;
          count += keys.length;
        } while (cursor !== '0');
        return count;
      } finally {
        client.disconnect();
      }
    },
    cleanup: () => deletePrefix(keyPrefix),
  };
}

/** A host's own MemoryStorage, passed in again at each start (it outlives the server, as Redis does). */
function memoryKind(): Kind {
  const instance = new MemoryStorage();
  return {
    storage: () => ({ type: 'custom', instance }),
    stored: async (value) => ((await instance.adapter('InitialAccessToken').find(value)) ? 1 : 0),
    cleanup: () => instance.close(),
  };
}

const kinds: Array<[string, () => Kind, boolean]> = [
  ['Redis', redisKind, available],
  ['a host MemoryStorage', memoryKind, true],
];

describe.each(kinds)('configured initial access token on %s, across restarts', (_name, make, runs) => {
  const maybe = runs ? test : test.skip;
  let kind: Kind;
  const running: RunningServer[] = [];
  const start = async (registration: PortcullisConfig['registration']) => {
    const srv = await startServer({ storage: kind.storage(), registration });
    running.push(srv);
    return srv;
  };
  const stop = async () => {
    await Promise.all(running.splice(0).map((s) => s.close()));
  };
  beforeEach(() => {
    kind = make();
  });
  afterEach(async () => {
    await stop();
    await kind.cleanup();
  });

  const refused = (res: Awaited<ReturnType<typeof register>>) => {
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error: 'invalid_token' });
  };

  maybe(
    'a rotated token: the old one is refused 401 invalid_token, the new one registers on every instance',
    async () => {
      const first = await start({ initialAccessToken: OLD });
      expect((await register(first.issuer, WEB_CLIENT, OLD)).status).toBe(201);
      await stop();

      const a = await start({ initialAccessToken: NEW });
      const b = await start({ initialAccessToken: NEW });
      for (const srv of [a, b]) {
        expect((await register(srv.issuer, WEB_CLIENT, NEW)).status).toBe(201);
        refused(await register(srv.issuer, { ...WEB_CLIENT, client_name: 'must-not-exist' }, OLD));
      }
      // The configured token is not written to storage at all.
      expect(await kind.stored(NEW)).toBe(0);
    },
  );

  maybe('the token removed from the configuration: configured ones refused, minted ones still register', async () => {
    const first = await start({ initialAccessToken: OLD });
    const mintedBefore = await first.server.mintInitialAccessToken({ singleUse: false, expiresIn: 600 });
    await stop();
    const second = await start({ initialAccessToken: NEW });
    expect((await register(second.issuer, WEB_CLIENT, NEW)).status).toBe(201);
    await stop();

    const open = await start({ enabled: true });
    refused(await register(open.issuer, { ...WEB_CLIENT, client_name: 'must-not-exist' }, OLD));
    refused(await register(open.issuer, { ...WEB_CLIENT, client_name: 'must-not-exist' }, NEW));
    expect((await register(open.issuer, WEB_CLIENT, mintedBefore)).status).toBe(201);
    const minted = await open.server.mintInitialAccessToken();
    expect((await register(open.issuer, WEB_CLIENT, minted)).status).toBe(201);
    refused(await register(open.issuer, WEB_CLIENT, minted));
  });

  maybe(
    'an entry stored without expiry, as earlier releases stored the configured token, is refused and deleted',
    async () => {
      const first = await start({ initialAccessToken: NEW });
      // What InitialAccessTokens.seed wrote at every start before this fix.
      await new first.server.provider.InitialAccessToken({ jti: OLD } as never).save();
      expect(await kind.stored(OLD)).toBe(1);
      refused(await register(first.issuer, { ...WEB_CLIENT, client_name: 'must-not-exist' }, OLD));
      expect(await kind.stored(OLD)).toBe(0);
      expect((await register(first.issuer, WEB_CLIENT, NEW)).status).toBe(201);
    },
  );
});

/**
 * Storage for the bare oidc-provider peer of the benchmarks: what a developer writes on day one, without
 * Portcullis' hardening (no atomic consume, no capacity bound, no secondary-index clean-up on re-upsert).
 * Both follow the shape of oidc-provider's own example adapters so the comparison is against the ordinary
 * baseline, not against a strawman.
 */
import type { Redis } from 'ioredis';
import type { Adapter, AdapterFactory, AdapterPayload } from '../lib/core/storage.js';

/** Models whose entries carry a `grantId` and go with their Grant (oidc-provider's memory_adapter.js list). */
const GRANTABLE = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
]);

interface MemoryEntry {
  payload: AdapterPayload;
  expiresAt: number;
}

/** A Map per process with expiry checked on read and an unref'd sweep (no LRU, so no eviction of live codes). */
export function bareMemoryAdapter(): AdapterFactory {
  const store = new Map<string, MemoryEntry>();
  const grants = new Map<string, Set<string>>();
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [k, e] of store) if (e.expiresAt <= now) store.delete(k);
  }, 60_000);
  sweep.unref();
  const get = (key: string): AdapterPayload | undefined => {
    const e = store.get(key);
    if (!e) return undefined;
    if (e.expiresAt <= Date.now()) {
      store.delete(key);
      return undefined;
    }
    return e.payload;
  };
  return (model: string): Adapter => {
    const key = (id: string) => `${model}:${id}`;
    return {
      async upsert(id, payload, expiresIn) {
        const expiresAt = expiresIn ? Date.now() + expiresIn * 1000 : Infinity;
        store.set(key(id), { payload, expiresAt });
        if (payload.uid) store.set(`uid:${payload.uid}`, { payload: { id } as AdapterPayload, expiresAt });
        if (payload.userCode)
          store.set(`userCode:${payload.userCode}`, { payload: { id } as AdapterPayload, expiresAt });
        if (GRANTABLE.has(model) && payload.grantId) {
          let set = grants.get(payload.grantId);
          if (!set) grants.set(payload.grantId, (set = new Set()));
          set.add(key(id));
        }
      },
      async find(id) {
        return get(key(id));
      },
      async findByUid(uid) {
        const ref = get(`uid:${uid}`);
        return ref ? get(key(String(ref.id))) : undefined;
      },
      async findByUserCode(code) {
        const ref = get(`userCode:${code}`);
        return ref ? get(key(String(ref.id))) : undefined;
      },
      async consume(id) {
        const p = get(key(id));
        if (p) p.consumed = Math.floor(Date.now() / 1000);
      },
      async destroy(id) {
        store.delete(key(id));
      },
      async revokeByGrantId(grantId) {
        for (const k of grants.get(grantId) ?? []) store.delete(k);
        grants.delete(grantId);
      },
    };
  };
}

/**
 * The straightforward Redis adapter (after oidc-provider's example `redis.js`): JSON string per entry, a MULTI
 * per upsert for the entry and its indexes, get-then-set consume.
 */
export function bareRedisAdapter(client: Redis, prefix: string): AdapterFactory {
  return (model: string): Adapter => {
    const key = (id: string) => `${prefix}${model}:${id}`;
    const grantKey = (id: string) => `${prefix}grant:${id}`;
    return {
      async upsert(id, payload, expiresIn) {
        const multi = client.multi();
        if (expiresIn) multi.set(key(id), JSON.stringify(payload), 'EX', expiresIn);
        else multi.set(key(id), JSON.stringify(payload));
        if (GRANTABLE.has(model) && payload.grantId) {
          multi.rpush(grantKey(payload.grantId), key(id));
          if (expiresIn) multi.expire(grantKey(payload.grantId), expiresIn);
        }
        for (const index of [
          payload.uid ? `${prefix}uid:${payload.uid}` : '',
          payload.userCode ? `${prefix}userCode:${payload.userCode}` : '',
        ]) {
          if (!index) continue;
          if (expiresIn) multi.set(index, id, 'EX', expiresIn);
          else multi.set(index, id);
        }
        await multi.exec();
      },
      async find(id) {
        const raw = await client.get(key(id));
        return raw ? (JSON.parse(raw) as AdapterPayload) : undefined;
      },
      async findByUid(uid) {
        const id = await client.get(`${prefix}uid:${uid}`);
        return id ? this.find(id) : undefined;
      },
      async findByUserCode(code) {
        const id = await client.get(`${prefix}userCode:${code}`);
        return id ? this.find(id) : undefined;
      },
      async consume(id) {
        const raw = await client.get(key(id));
        if (!raw) return;
        const payload = JSON.parse(raw) as AdapterPayload;
        payload.consumed = Math.floor(Date.now() / 1000);
        await client.set(key(id), JSON.stringify(payload), 'KEEPTTL');
      },
      async destroy(id) {
        await client.del(key(id));
      },
      async revokeByGrantId(grantId) {
        const keys = await client.lrange(grantKey(grantId), 0, -1);
        const multi = client.multi();
        for (const k of keys) multi.del(k);
        multi.del(grantKey(grantId));
        await multi.exec();
      },
    };
  };
}

import { errors } from 'oidc-provider';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import type { AccountSeed, AccountStore } from '../lib/core/account-store.js';
import type { LimiterBackend } from '../lib/core/limiter.js';
import type { Logger } from '../lib/core/logger.js';
import {
  GRANT_LINKED_MODELS,
  indexValue,
  type Adapter,
  type AdapterFactory,
  type AdapterPayload,
  type Storage,
} from '../lib/core/storage.js';
import { RedisAccountStore } from './redis-account-store.js';
import { RedisConnection } from './redis-connection.js';
import { ACCOUNT_INDEX_ADD, CONSUME, DESTROY, FIND_BY_INDEX, REVOKE_GRANT, UPSERT } from './redis-scripts.js';

export { failFastRedisOptions, redactRedisUrl, type RedisClient, type RedisStorageOptions } from './redis-client.js';

/**
 * Redis storage on ioredis for every oidc-provider model and Portcullis' own stores.
 *
 * Keys: `<prefix><Model>:{<id>}` is a hash (`payload` JSON, `consumed` epoch seconds) with the entry's expiry;
 * `<prefix><Model>:uid:{<uid>}` and `<prefix><Model>:userCode:{<code>}` point to the id; `<prefix>grant:{<grantId>}`
 * is the set of keys issued from one grant (tokens and codes only, {@link GRANT_LINKED_MODELS}). Each braced part
 * is a Redis Cluster hash tag.
 *
 * Round trips: one per adapter call on a single node or behind Sentinel (one command or one Lua script, each
 * atomic). On a Cluster the keys of one call live in different slots, so `upsert`, `destroy`, `findByUid`,
 * `findByUserCode` and `revokeByGrantId` take two (a read, then commands sent concurrently). `consume` is one
 * atomic script everywhere: the loser of a race gets `invalid_grant`.
 */
export class RedisStorage extends RedisConnection implements Storage {
  readonly adapter: AdapterFactory = (modelName: string) => new RedisAdapter(this, modelName);

  /**
   * A {@link RedisAccountStore} next to the provider's data, with `seed` written (idempotent) and the e-mail index
   * of earlier versions moved to canonical keys (warnings to `logger`).
   */
  accountStore(seed: readonly AccountSeed[], logger?: Logger): Promise<AccountStore> {
    return RedisAccountStore.fromSeed(this, seed, logger);
  }

  /** Rate-limit counters in this Redis (`<prefix>rl:<limit name>`), so every instance counts together. */
  limiterBackend(): LimiterBackend {
    return (name, spec) =>
      new RateLimiterRedis({
        storeClient: this.client,
        keyPrefix: `${this.keyPrefix}rl:${name}`,
        points: spec.points,
        duration: spec.durationSeconds,
      });
  }

  /**
   * `AccountSessions`' index write in one round trip (one key, so on a Cluster too): adds `{ id, exp }` (exp in
   * epoch seconds) to the `kind` list of the `AccountIndex` entry of `accountId`, as the adapter-based
   * read-modify-write would.
   * @throws {StorageUnavailableError} when Redis is unavailable.
   */
  async addToAccountIndex(accountId: string, kind: 'sessions' | 'grants', id: string, exp: number): Promise<void> {
    const now = Math.floor(Date.now() / 1000);
    await this.run(() =>
      this.eval(ACCOUNT_INDEX_ADD, [`${this.keyPrefix}AccountIndex:{${accountId}}`], [now, kind, id, exp]),
    );
  }
}

/**
 * Longest TTL written, seconds (about 31,700 years): `EXPIRE` refuses a time whose milliseconds overflow 64 bits, and
 * a number JavaScript writes with an exponent (`1e+21`, `Infinity`). A client's assertion `exp` (ReplayDetection)
 * can be any number.
 */
const MAX_TTL_SECONDS = 10 ** 12;

class RedisAdapter implements Adapter {
  readonly #s: RedisConnection;
  readonly #model: string;

  constructor(storage: RedisConnection, model: string) {
    this.#s = storage;
    this.#model = model;
  }

  #key(id: string): string {
    return `${this.#s.keyPrefix}${this.#model}:{${id}}`;
  }

  get #modelPrefix(): string {
    return `${this.#s.keyPrefix}${this.#model}:`;
  }

  get #grantPrefix(): string {
    return `${this.#s.keyPrefix}grant:{`;
  }

  #index(kind: 'uid' | 'userCode', value: string): string {
    return `${this.#modelPrefix}${kind}:{${value}}`;
  }

  #grant(grantId: string): string {
    return `${this.#grantPrefix}${grantId}}`;
  }

  static #decode(fields: unknown): AdapterPayload | undefined {
    const [payload, consumed] = (fields ?? []) as [string | null, string | null];
    if (!payload) return undefined;
    const parsed = JSON.parse(payload) as AdapterPayload;
    if (consumed) parsed.consumed = Number(consumed);
    return parsed;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    // Already expired (oidc-provider saves `exp - now`, which reaches 0 or less at the end of a lifetime): a TTL of
    // 0 would have kept it forever.
    if (expiresIn !== undefined && expiresIn <= 0) return this.destroy(id);
    const key = this.#key(id);
    const ttl = expiresIn && expiresIn > 0 ? Math.min(Math.ceil(expiresIn), MAX_TTL_SECONDS) : 0;
    const { consumed, ...rest } = payload;
    // Only tokens and codes join the grant's set (see GRANT_LINKED_MODELS); an Interaction's grantId is data.
    // Only string members are indexed (indexValue); any other value is plain data, in the scripts too.
    const grantId = GRANT_LINKED_MODELS.has(this.#model) ? indexValue(payload.grantId) : undefined;
    const uid = indexValue(payload.uid);
    const userCode = indexValue(payload.userCode);
    if (!this.#s.isCluster) {
      await this.#s.run(() =>
        this.#s.eval(
          UPSERT,
          [key],
          [
            JSON.stringify(rest),
            ttl,
            consumed ?? '',
            uid ?? '',
            userCode ?? '',
            grantId ?? '',
            this.#modelPrefix,
            this.#grantPrefix,
            id,
          ],
        ),
      );
      return;
    }
    const old = await this.find(id);
    const commands: Array<[string, ...Array<string | number>]> = [
      ['DEL', key],
      ['HSET', key, 'payload', JSON.stringify(rest)],
    ];
    if (consumed) commands.push(['HSET', key, 'consumed', consumed]);
    if (ttl) commands.push(['EXPIRE', key, ttl]);
    const setIndex = (kind: 'uid' | 'userCode', value: string) =>
      commands.push(ttl ? ['SET', this.#index(kind, value), id, 'EX', ttl] : ['SET', this.#index(kind, value), id]);
    if (uid) setIndex('uid', uid);
    if (userCode) setIndex('userCode', userCode);
    const [oldUid, oldUserCode, oldGrantId] = [
      indexValue(old?.uid),
      indexValue(old?.userCode),
      indexValue(old?.grantId),
    ];
    if (oldUid && oldUid !== uid) commands.push(['DEL', this.#index('uid', oldUid)]);
    if (oldUserCode && oldUserCode !== userCode) commands.push(['DEL', this.#index('userCode', oldUserCode)]);
    if (oldGrantId && oldGrantId !== grantId) commands.push(['SREM', this.#grant(oldGrantId), key]);
    if (grantId) {
      const grantKey = this.#grant(grantId);
      commands.push(['SADD', grantKey, key]);
      // The grant's set lives as long as its longest member: GT never shortens it, NX sets a first expiry.
      commands.push(ttl ? ['EXPIRE', grantKey, ttl, 'GT'] : ['PERSIST', grantKey]);
      if (ttl) commands.push(['EXPIRE', grantKey, ttl, 'NX']);
    }
    await this.#s.run(() => this.#s.batch(commands));
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const fields = await this.#s.run(() => this.#s.client.hmget(this.#key(id), 'payload', 'consumed'));
    return RedisAdapter.#decode(fields);
  }

  async #findByIndex(kind: 'uid' | 'userCode', value: string): Promise<AdapterPayload | undefined> {
    const indexKey = this.#index(kind, value);
    if (this.#s.isCluster) {
      const id = await this.#s.run(() => this.#s.client.get(indexKey));
      return id ? this.find(id) : undefined;
    }
    const fields = await this.#s.run(() => this.#s.eval(FIND_BY_INDEX, [indexKey], [`${this.#modelPrefix}{`]));
    return RedisAdapter.#decode(fields);
  }

  findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return this.#findByIndex('uid', uid);
  }

  findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    return this.#findByIndex('userCode', userCode);
  }

  async consume(id: string): Promise<void> {
    const result = await this.#s.run(() => this.#s.eval(CONSUME, [this.#key(id)], [Math.floor(Date.now() / 1000)]));
    if (result !== 1) throw new errors.InvalidGrant(`${this.#model} already consumed or not found`);
  }

  async destroy(id: string): Promise<void> {
    const key = this.#key(id);
    if (!this.#s.isCluster) {
      await this.#s.run(() => this.#s.eval(DESTROY, [key], [this.#modelPrefix, this.#grantPrefix]));
      return;
    }
    const payload = await this.find(id);
    const commands: Array<[string, ...Array<string | number>]> = [['DEL', key]];
    const [uid, userCode, grantId] = [
      indexValue(payload?.uid),
      indexValue(payload?.userCode),
      indexValue(payload?.grantId),
    ];
    if (uid) commands.push(['DEL', this.#index('uid', uid)]);
    if (userCode) commands.push(['DEL', this.#index('userCode', userCode)]);
    if (grantId) commands.push(['SREM', this.#grant(grantId), key]);
    await this.#s.run(() => this.#s.batch(commands));
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    const grantKey = this.#grant(grantId);
    const linked = [...GRANT_LINKED_MODELS].map((model) => `${this.#s.keyPrefix}${model}:{`);
    if (!this.#s.isCluster) {
      await this.#s.run(() => this.#s.eval(REVOKE_GRANT, [grantKey], linked));
      return;
    }
    const members = await this.#s.run(() => this.#s.client.smembers(grantKey));
    const revoked = members.filter((key) => linked.some((p) => key.startsWith(p)));
    await this.#s.run(() => Promise.all([...revoked, grantKey].map((key) => this.#s.client.del(key))));
  }
}

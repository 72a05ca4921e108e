import { createHash } from 'node:crypto';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { errors } from 'oidc-provider';
import { ConfigError, PortcullisError, StorageConnectError, StorageUnavailableError } from '../lib/core/errors.js';
import { GRANT_LINKED_MODELS, type Adapter, type AdapterFactory, type AdapterPayload, type Storage } from '../lib/core/storage.js';
import { DEFAULTS } from '../config/defaults.js';

/** A connected ioredis client: a single node (also behind Sentinel) or a Cluster. */
export type RedisClient = Redis | Cluster;

export interface RedisStorageOptions {
  /** A client you created and own (it is not closed by {@link RedisStorage.close}). Exclusive with `url`. */
  client?: RedisClient;
  /** `redis://[:password@]host:port[/db]` or `rediss://…`; a client is created with fail-fast options. */
  url?: string;
  /** Prefix of every key. Default: `storage.keyPrefix` of the option schema (`config/options.ts`). */
  keyPrefix?: string;
  /** Time limit of one command, ms, for clients created from `url`. @default 2000 */
  commandTimeoutMs?: number;
}

/**
 * ioredis options that make a storage outage fail fast instead of queueing requests until they time out:
 * no offline queue, no per-request retries, a command time-out. The connection itself keeps reconnecting, so the
 * server recovers without a restart when Redis comes back.
 */
export function failFastRedisOptions(commandTimeoutMs = 2000): RedisOptions {
  return {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: commandTimeoutMs,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
    lazyConnect: false,
    // Commands issued in the same tick (an entry and its index, a prefetch and the read beside it) go out in one
    // write, so Redis reads and answers them together: one round trip.
    enableAutoPipelining: true,
    // ioredis arms this timer on disconnect() even when the socket is already closed (a refused or failed
    // connection), and the timer then holds the process for its length: keep it short so a failed start exits.
    disconnectTimeout: 200,
  };
}

/** Single-node upsert: replaces the entry and its indexes atomically, dropping indexes the old payload had. */
const UPSERT = `
local old = redis.call('HGET', KEYS[1], 'payload')
if old then
  local o = cjson.decode(old)
  if o.uid and o.uid ~= ARGV[4] then redis.call('DEL', ARGV[7] .. 'uid:{' .. o.uid .. '}') end
  if o.userCode and o.userCode ~= ARGV[5] then redis.call('DEL', ARGV[7] .. 'userCode:{' .. o.userCode .. '}') end
  if o.grantId and o.grantId ~= ARGV[6] then redis.call('SREM', ARGV[8] .. o.grantId .. '}', KEYS[1]) end
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'payload', ARGV[1])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'consumed', ARGV[3]) end
local ttl = tonumber(ARGV[2])
if ttl > 0 then redis.call('EXPIRE', KEYS[1], ttl) end
local function index(k)
  if ttl > 0 then redis.call('SET', k, ARGV[9], 'EX', ttl) else redis.call('SET', k, ARGV[9]) end
end
if ARGV[4] ~= '' then index(ARGV[7] .. 'uid:{' .. ARGV[4] .. '}') end
if ARGV[5] ~= '' then index(ARGV[7] .. 'userCode:{' .. ARGV[5] .. '}') end
if ARGV[6] ~= '' then
  local g = ARGV[8] .. ARGV[6] .. '}'
  redis.call('SADD', g, KEYS[1])
  if ttl > 0 then
    -- a new set gets this expiry; an expiring one is only ever extended; a persisted one stays persisted
    local current = redis.call('TTL', g)
    if (current == -1 and redis.call('SCARD', g) == 1) or (current >= 0 and current < ttl) then redis.call('EXPIRE', g, ttl) end
  else
    redis.call('PERSIST', g)
  end
end
return 1`;

/** Single-node destroy: the entry, its indexes and its grant-set membership at once. */
const DESTROY = `
local p = redis.call('HGET', KEYS[1], 'payload')
redis.call('DEL', KEYS[1])
if p then
  local o = cjson.decode(p)
  if o.uid then redis.call('DEL', ARGV[1] .. 'uid:{' .. o.uid .. '}') end
  if o.userCode then redis.call('DEL', ARGV[1] .. 'userCode:{' .. o.userCode .. '}') end
  if o.grantId then redis.call('SREM', ARGV[2] .. o.grantId .. '}', KEYS[1]) end
end
return 1`;

const CONSUME = `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
return redis.call('HSETNX', KEYS[1], 'consumed', ARGV[1])`;

const FIND_BY_INDEX = `
local id = redis.call('GET', KEYS[1])
if not id then return nil end
return redis.call('HMGET', ARGV[1] .. id .. '}', 'payload', 'consumed')`;

/**
 * Adds `{id, exp}` to the `sessions` or `grants` list of an `AccountIndex` entry in one atomic step (see
 * {@link RedisStorage.addToAccountIndex}); the same read-modify-write as `AccountSessions` does through the
 * adapter: expired entries and an older entry of the same id leave that list, the entry lives as long as its
 * longest-lived member. ARGV: now (epoch s), kind, id, exp. Lists are written as JSON arrays even when empty.
 */
const ACCOUNT_INDEX_ADD = `
local now = tonumber(ARGV[1])
local kind = ARGV[2]
local raw = redis.call('HGET', KEYS[1], 'payload')
local p = raw and cjson.decode(raw) or {}
local lists = {}
local maxExp = nil
for _, k in ipairs({ 'sessions', 'grants' }) do
  local list = {}
  if type(p[k]) == 'table' then
    for _, e in ipairs(p[k]) do
      if k ~= kind or (tonumber(e.exp) > now and e.id ~= ARGV[3]) then table.insert(list, e) end
    end
  end
  if k == kind then table.insert(list, { id = ARGV[3], exp = tonumber(ARGV[4]) }) end
  local parts = {}
  for i, e in ipairs(list) do
    parts[i] = cjson.encode({ id = e.id, exp = e.exp })
    local x = tonumber(e.exp)
    if maxExp == nil or x > maxExp then maxExp = x end
  end
  lists[k] = '[' .. table.concat(parts, ',') .. ']'
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'payload', '{"sessions":' .. lists.sessions .. ',"grants":' .. lists.grants .. '}')
redis.call('EXPIRE', KEYS[1], math.max(1, math.ceil(maxExp - now)))
return 1`;

/**
 * Deletes the members of a grant set that belong to a grant-linked model (ARGV: their key prefixes). The filter
 * also protects Interactions and Sessions that an older version of this adapter put in the set.
 */
const REVOKE_GRANT = `
local members = redis.call('SMEMBERS', KEYS[1])
local n = 0
for _, key in ipairs(members) do
  for _, p in ipairs(ARGV) do
    if string.sub(key, 1, #p) == p then redis.call('DEL', key); n = n + 1; break end
  end
end
redis.call('DEL', KEYS[1])
return n`;

/**
 * `url` with its password replaced by `***`, for messages and logs (the user name stays). A string that does not
 * parse as a URL is not echoed at all.
 */
export function redactRedisUrl(url: string): string {
  if (!URL.canParse(url)) return '(an unparsable URL)';
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.href;
}

/** What a start-up failure of ioredis means, in words; `fatal` ones are not retried at start-up. */
function startFailure(err: (Error & { code?: string; hostname?: string; address?: string; port?: number }) | undefined, timeoutMs: number): { reason: string; fatal: boolean } {
  const message = String(err?.message ?? '');
  const code = err?.code ?? '';
  if (!err) return { reason: `no answer within ${timeoutMs} ms (timed out)`, fatal: false };
  if (/^WRONGPASS/.test(message)) return { reason: 'authentication failed (WRONGPASS: wrong user name or password)', fatal: true };
  if (/^NOAUTH/.test(message)) return { reason: 'authentication required (NOAUTH: the server needs a password; put it in the URL as redis://:PASSWORD@host:port)', fatal: true };
  if (/^(ERR|WRONGPASS).*(AUTH|password)/i.test(message)) return { reason: `authentication failed (${message.split('.')[0]})`, fatal: true };
  if (code === 'ECONNREFUSED') return { reason: `connection refused (ECONNREFUSED${err.address ? `: nothing listens on ${err.address}:${err.port}` : ''})`, fatal: false };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME') return { reason: `DNS lookup of ${JSON.stringify(err.hostname ?? '')} failed (${code})`, fatal: false };
  if (code === 'ETIMEDOUT' || /ETIMEDOUT|timed? ?out/i.test(message)) return { reason: `connection timed out (ETIMEDOUT) within ${timeoutMs} ms`, fatal: false };
  if (/Unknown RESP type|Protocol error/i.test(message)) return { reason: 'the server does not speak the Redis protocol (is this the Redis port?)', fatal: true };
  if (/^ERR DB index/i.test(message)) return { reason: message, fatal: false }; // reported by connect() as a configuration error
  return { reason: code ? `${code}: ${message}` : message, fatal: false };
}

/** Storage errors that mean "Redis is not there": answered 503, never 500. */
function isConnectionError(err: unknown): boolean {
  const e = err as { name?: string; message?: string; code?: string };
  return e?.name === 'MaxRetriesPerRequestError'
    || /Connection is closed|Stream isn't writeable|enableOfflineQueue|Command timed out|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|connect ETIMEDOUT|Reached the max retries|Cluster isn't ready|LOADING|CLUSTERDOWN/i.test(String(e?.message ?? e?.code ?? ''));
}

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
export class RedisStorage implements Storage {
  readonly client: RedisClient;
  readonly keyPrefix: string;
  readonly #ownsClient: boolean;
  readonly #url: string | undefined;
  /** SHA-1 of each Lua script sent, for `EVALSHA`. */
  readonly #scriptShas = new Map<string, string>();
  #wasReady = false;

  constructor(options: RedisStorageOptions) {
    if (!options.client === !options.url) throw new PortcullisError('ERR_INVALID_ARGUMENT', 'RedisStorage needs exactly one of `client` or `url`');
    this.client = options.client ?? new Redis(options.url!, failFastRedisOptions(options.commandTimeoutMs));
    this.#ownsClient = !options.client;
    this.#url = options.url;
    this.keyPrefix = options.keyPrefix ?? DEFAULTS.storage.keyPrefix;
    // Connection errors surface on the commands that fail; don't crash the process on the emitter.
    this.client.on('error', () => {});
  }

  get isCluster(): boolean {
    return this.client instanceof Cluster;
  }

  readonly adapter: AdapterFactory = (modelName: string) => new RedisAdapter(this, modelName);

  /**
   * Resolves once the client is connected (the first connection only; later outages fail fast instead of waiting).
   * Authentication failures and a peer that is not Redis fail at once; refused connections and DNS failures are
   * retried until `timeoutMs` (Redis may be starting next to us), then reported with the last error.
   * @throws {StorageConnectError} naming the redacted URL and the reason, with the ioredis error as `cause`.
   */
  async ready(timeoutMs = 5000): Promise<void> {
    if (this.client.status === 'ready') return;
    await new Promise<void>((resolve, reject) => {
      let last: Error | undefined;
      const done = (err?: Error) => {
        clearTimeout(timer);
        this.client.off('ready', onReady);
        this.client.off('error', onError);
        if (err) reject(err); else resolve();
      };
      const fail = () => done(new StorageConnectError(this.location, startFailure(last, timeoutMs).reason, last));
      const onReady = () => done();
      const onError = (err: Error) => {
        last = err;
        if (startFailure(err, timeoutMs).fatal) fail();
      };
      const timer = setTimeout(fail, timeoutMs);
      this.client.on('ready', onReady);
      this.client.on('error', onError);
    });
  }

  /**
   * Opens the storage at start-up: waits for the first connection, then checks that the database index of the
   * URL exists (ioredis only reports a failed `SELECT` as an event and then works on database 0). On failure a
   * client created from `url` is disconnected, so nothing keeps the process alive.
   * @throws {StorageConnectError} when Redis cannot be reached or refuses the credentials.
   * @throws {ConfigError} `storage.url` when the database index is out of range.
   */
  async connect(timeoutMs = 5000): Promise<void> {
    try {
      await this.ready(timeoutMs);
      const db = this.client instanceof Redis ? Number(this.client.options.db ?? 0) : 0;
      if (db !== 0) await this.#checkDatabase(db);
      this.#wasReady = true;
    } catch (err) {
      await this.close();
      throw err;
    }
  }

  async #checkDatabase(db: number): Promise<void> {
    try {
      await this.client.call('SELECT', db);
    } catch (err) {
      if (!/DB index/i.test(String((err as Error).message))) throw new StorageConnectError(this.location, startFailure(err as Error, 0).reason, err);
      const count = await this.client.call('CONFIG', 'GET', 'databases').then((r) => Number((r as string[])[1]), () => NaN);
      const range = Number.isInteger(count) && count > 0 ? `; this server has ${count} (0–${count - 1})` : '';
      throw new ConfigError('storage.url', `database index ${db} of ${this.location} does not exist (${(err as Error).message})${range}`, 'ERR_CONFIG_INVALID', { cause: err });
    }
  }

  /** Where this storage connects, for messages: the URL with its password redacted, or host:port/db of a client passed in. */
  get location(): string {
    if (this.#url) return redactRedisUrl(this.#url);
    if (this.client instanceof Redis) {
      const { host, port, db } = this.client.options;
      return `${host ?? '127.0.0.1'}:${port ?? 6379}/${db ?? 0}`;
    }
    return 'the Redis Cluster client passed in';
  }

  /** Runs a storage call, turning outages into {@link StorageUnavailableError} (503). */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (!this.#wasReady) {
      try {
        await this.ready();
      } catch (err) {
        throw new StorageUnavailableError('ERR_STORAGE_UNAVAILABLE', 'storage is unavailable; try again later', { cause: err });
      }
      this.#wasReady = true;
    }
    try {
      return await fn();
    } catch (err) {
      if (err instanceof errors.OIDCProviderError || err instanceof StorageUnavailableError) throw err;
      if (isConnectionError(err) || this.client.status !== 'ready') {
        throw new StorageUnavailableError('ERR_STORAGE_UNAVAILABLE', 'storage is unavailable; try again later', { cause: err });
      }
      throw err;
    }
  }

  /** Sends independent commands concurrently (Cluster: they may live in different slots). */
  async batch(commands: Array<[string, ...Array<string | number>]>): Promise<unknown[]> {
    return Promise.all(commands.map(([cmd, ...args]) => this.client.call(cmd, ...args)));
  }

  /**
   * Runs a Lua script in one round trip: `EVALSHA` with the script's SHA-1, and `EVAL` (which loads it) only when
   * Redis answers `NOSCRIPT` (first use, or after a restart or `SCRIPT FLUSH`).
   */
  async eval(script: string, keys: string[], args: Array<string | number>): Promise<unknown> {
    let sha = this.#scriptShas.get(script);
    if (!sha) {
      sha = createHash('sha1').update(script).digest('hex');
      this.#scriptShas.set(script, sha);
    }
    try {
      return await this.client.evalsha(sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (!(err as Error).message?.startsWith('NOSCRIPT')) throw err;
      return this.client.eval(script, keys.length, ...keys, ...args);
    }
  }


  /**
   * `AccountSessions`' index write in one round trip (one key, so on a Cluster too): adds `{ id, exp }` (exp in
   * epoch seconds) to the `kind` list of the `AccountIndex` entry of `accountId`, as the adapter-based
   * read-modify-write would.
   * @throws {StorageUnavailableError} when Redis is unavailable.
   */
  async addToAccountIndex(accountId: string, kind: 'sessions' | 'grants', id: string, exp: number): Promise<void> {
    const now = Math.floor(Date.now() / 1000);
    await this.run(() => this.eval(ACCOUNT_INDEX_ADD, [`${this.keyPrefix}AccountIndex:{${accountId}}`], [now, kind, id, exp]));
  }

  async ping(): Promise<void> {
    await this.run(() => this.client.ping());
  }

  /** Closes a client created from `url` (a passed-in client stays open). Never waits on an unreachable Redis. */
  async close(): Promise<void> {
    if (!this.#ownsClient) return;
    if (this.client.status !== 'ready') {
      this.client.disconnect();
      return;
    }
    const quit = this.client.quit().catch(() => undefined);
    const timeout = new Promise((resolve) => setTimeout(resolve, 1000).unref());
    await Promise.race([quit, timeout]);
    this.client.disconnect();
  }
}

class RedisAdapter implements Adapter {
  readonly #s: RedisStorage;
  readonly #model: string;

  constructor(storage: RedisStorage, model: string) {
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
    const key = this.#key(id);
    const ttl = expiresIn && expiresIn > 0 ? Math.ceil(expiresIn) : 0;
    const { consumed, ...rest } = payload;
    // Only tokens and codes join the grant's set (see GRANT_LINKED_MODELS); an Interaction's grantId is data.
    const grantId = GRANT_LINKED_MODELS.has(this.#model) ? payload.grantId : undefined;
    if (!this.#s.isCluster) {
      await this.#s.run(() => this.#s.eval(UPSERT, [key], [
        JSON.stringify(rest), ttl, consumed ?? '', payload.uid ?? '', payload.userCode ?? '', grantId ?? '',
        this.#modelPrefix, this.#grantPrefix, id,
      ]));
      return;
    }
    const old = await this.find(id);
    const commands: Array<[string, ...Array<string | number>]> = [['DEL', key], ['HSET', key, 'payload', JSON.stringify(rest)]];
    if (consumed) commands.push(['HSET', key, 'consumed', consumed]);
    if (ttl) commands.push(['EXPIRE', key, ttl]);
    const setIndex = (kind: 'uid' | 'userCode', value: string) => commands.push(ttl ? ['SET', this.#index(kind, value), id, 'EX', ttl] : ['SET', this.#index(kind, value), id]);
    if (payload.uid) setIndex('uid', payload.uid);
    if (payload.userCode) setIndex('userCode', payload.userCode);
    if (old?.uid && old.uid !== payload.uid) commands.push(['DEL', this.#index('uid', old.uid)]);
    if (old?.userCode && old.userCode !== payload.userCode) commands.push(['DEL', this.#index('userCode', old.userCode)]);
    if (old?.grantId && old.grantId !== grantId) commands.push(['SREM', this.#grant(old.grantId), key]);
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
    if (payload?.uid) commands.push(['DEL', this.#index('uid', payload.uid)]);
    if (payload?.userCode) commands.push(['DEL', this.#index('userCode', payload.userCode)]);
    if (payload?.grantId) commands.push(['SREM', this.#grant(payload.grantId), key]);
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

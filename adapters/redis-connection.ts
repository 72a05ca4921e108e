import { createHash } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import { errors } from 'oidc-provider';
import { ConfigError, PortcullisError, StorageConnectError, StorageUnavailableError } from '../lib/core/errors.js';
import { DEFAULTS } from '../config/defaults.js';
import {
  clientFromUrl,
  isConnectionError,
  redactRedisUrl,
  type RedisClient,
  type RedisStorageOptions,
  startFailure,
} from './redis-client.js';

/**
 * The connection half of {@link RedisStorage}: the ioredis client, start-up (first connection, database check),
 * outage mapping (503, never 500), `EVALSHA` with fallback, and closing. The adapters and the account store run
 * their commands through it.
 */
export class RedisConnection {
  readonly client: RedisClient;
  readonly keyPrefix: string;
  readonly #ownsClient: boolean;
  readonly #url: string | undefined;
  /** SHA-1 of each Lua script sent, for `EVALSHA`. */
  readonly #scriptShas = new Map<string, string>();
  #wasReady = false;

  constructor(options: RedisStorageOptions) {
    if (!options.client === !options.url)
      throw new PortcullisError('ERR_INVALID_ARGUMENT', 'RedisStorage needs exactly one of `client` or `url`');
    this.client = options.client ?? clientFromUrl(options.url!, options.commandTimeoutMs);
    this.#ownsClient = !options.client;
    this.#url = options.url;
    this.keyPrefix = options.keyPrefix ?? DEFAULTS.storage.keyPrefix;
    // Connection errors surface on the commands that fail; don't crash the process on the emitter.
    this.client.on('error', this.#ignoreError);
  }

  /** The client's `error` listener of this storage (removed by {@link close} from a passed-in client). */
  readonly #ignoreError = (): void => {};

  get isCluster(): boolean {
    return this.client instanceof Cluster;
  }

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
        if (err) reject(err);
        else resolve();
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
      if (!/DB index/i.test(String((err as Error).message)))
        throw new StorageConnectError(this.location, startFailure(err as Error, 0).reason, err);
      const count = await this.client.call('CONFIG', 'GET', 'databases').then(
        (r) => Number((r as string[])[1]),
        () => NaN,
      );
      const range = Number.isInteger(count) && count > 0 ? `; this server has ${count} (0–${count - 1})` : '';
      throw new ConfigError(
        'storage.url',
        `database index ${db} of ${this.location} does not exist (${(err as Error).message})${range}`,
        'ERR_CONFIG_INVALID',
        { cause: err },
      );
    }
  }

  /**
   * Where this storage connects, for messages: the URL with its password redacted, or host:port/db of a client passed
   * in.
   */
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
        throw new StorageUnavailableError('ERR_STORAGE_UNAVAILABLE', 'storage is unavailable; try again later', {
          cause: err,
        });
      }
      this.#wasReady = true;
    }
    try {
      return await fn();
    } catch (err) {
      if (err instanceof errors.OIDCProviderError || err instanceof StorageUnavailableError) throw err;
      if (isConnectionError(err) || this.client.status !== 'ready') {
        throw new StorageUnavailableError('ERR_STORAGE_UNAVAILABLE', 'storage is unavailable; try again later', {
          cause: err,
        });
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

  async ping(): Promise<void> {
    await this.run(() => this.client.ping());
  }

  /**
   * Closes a client created from `url`; a passed-in client stays open and only loses this storage's `error`
   * listener (a host creating servers over one client would otherwise collect them). Never waits on an unreachable
   * Redis.
   */
  async close(): Promise<void> {
    if (!this.#ownsClient) {
      this.client.off('error', this.#ignoreError);
      return;
    }
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

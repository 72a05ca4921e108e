import { createHash } from 'node:crypto';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { errors } from 'oidc-provider';
import { ConfigError, PortcullisError, StorageConnectError, StorageUnavailableError } from '../lib/core/errors.js';
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
  /**
   * For clients created from `url`: how long Redis may stay silent while commands wait for an answer, ms. After it
   * the connection is dropped: the waiting commands fail (503 `temporarily_unavailable`), later ones fail at once
   * while the client reconnects, and the server recovers when Redis answers again. @default 2000
   */
  commandTimeoutMs?: number;
}

/**
 * ioredis options that make a storage outage fail fast instead of queueing requests until they time out:
 * no offline queue, no per-request retries, and a silence limit on the connection (`socketTimeout`: Redis has
 * answered nothing for `commandTimeoutMs` ms while commands wait). A frozen Redis (a hung host: connections
 * accepted, nothing answered) thus costs the requests already waiting one limit, and the next ones fail at once
 * until it answers again; a per-command limit (ioredis `commandTimeout`) made every request wait it out, and armed
 * and cleared a timer per command. The connection itself keeps reconnecting, so the server recovers without a
 * restart when Redis comes back.
 */
export function failFastRedisOptions(commandTimeoutMs = 2000): RedisOptions {
  return {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    socketTimeout: commandTimeoutMs,
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

/**
 * Replies with which a reachable Redis refuses a command for a while, whatever the command (the first word of the
 * reply, also of a script's error): out of memory under `noeviction`, a replica after a failover (`READONLY`), a
 * failed snapshot (`MISCONF`), a long script (`BUSY`), a replica without its master, a password changed on the
 * server (`NOAUTH`), a dataset still loading, a cluster resharding or down.
 */
const SERVER_REFUSAL = /^(OOM|READONLY|MISCONF|BUSY|MASTERDOWN|NOREPLICAS|NOAUTH|LOADING|TRYAGAIN|CLUSTERDOWN)\b/;

/** Storage errors that mean "Redis cannot serve now" (unreachable, or refusing every write): answered 503, never 500. */
function isConnectionError(err: unknown): boolean {
  const e = err as { name?: string; message?: string; code?: string };
  const message = String(e?.message ?? e?.code ?? '');
  return e?.name === 'MaxRetriesPerRequestError' || SERVER_REFUSAL.test(message)
    || /Connection is closed|Stream isn't writeable|enableOfflineQueue|Command timed out|Socket timeout|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|connect ETIMEDOUT|Reached the max retries|Cluster isn't ready|LOADING|CLUSTERDOWN/i.test(message);
}

/**
 * An ioredis client for `url`. ioredis parses the URL in its constructor and throws a bare `TypeError: Invalid URL`
 * (its `input` property holding the whole URL, password included) or `URIError` (a bad `%` escape in the user or
 * password); both become a ConfigError at `storage.url` naming the redacted URL, without the original as `cause`.
 *
 * @throws {ConfigError} `storage.url` when ioredis cannot read the URL.
 */
function clientFromUrl(url: string, commandTimeoutMs: number | undefined): Redis {
  try {
    return new Redis(url, failFastRedisOptions(commandTimeoutMs));
  } catch (err) {
    const why = (err as Error).name === 'URIError' ? 'a malformed % escape in its user name or password' : 'not a URL (a bad host or a port above 65535?)';
    throw new ConfigError('storage.url', `cannot read ${redactRedisUrl(url)}: ${why}; write it as redis://[:password@]host:port[/db] or rediss://…, percent-encoding special characters`);
  }
}

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
    if (!options.client === !options.url) throw new PortcullisError('ERR_INVALID_ARGUMENT', 'RedisStorage needs exactly one of `client` or `url`');
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

/**
 * The ioredis client of the Redis storage: its fail-fast options, the client made from `storage.url`, and what
 * ioredis's failures mean (at start-up, and while serving). {@link RedisConnection} (redis-connection.ts) uses them.
 */
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { ConfigError } from '../lib/core/errors.js';

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
export function startFailure(
  err: (Error & { code?: string; hostname?: string; address?: string; port?: number }) | undefined,
  timeoutMs: number,
): { reason: string; fatal: boolean } {
  const message = String(err?.message ?? '');
  const code = err?.code ?? '';
  if (!err) return { reason: `no answer within ${timeoutMs} ms (timed out)`, fatal: false };
  if (/^WRONGPASS/.test(message))
    return { reason: 'authentication failed (WRONGPASS: wrong user name or password)', fatal: true };
  if (/^NOAUTH/.test(message))
    return {
      reason:
        'authentication required (NOAUTH: the server needs a password; put it in the URL as ' +
        'redis://:PASSWORD@host:port)',
      fatal: true,
    };
  if (/^(ERR|WRONGPASS).*(AUTH|password)/i.test(message))
    return { reason: `authentication failed (${message.split('.')[0]})`, fatal: true };
  if (code === 'ECONNREFUSED')
    return {
      reason:
        `connection refused ` + `(ECONNREFUSED${err.address ? `: nothing listens on ${err.address}:${err.port}` : ''})`,
      fatal: false,
    };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME')
    return { reason: `DNS lookup of ${JSON.stringify(err.hostname ?? '')} failed (${code})`, fatal: false };
  if (code === 'ETIMEDOUT' || /ETIMEDOUT|timed? ?out/i.test(message))
    return { reason: `connection timed out (ETIMEDOUT) within ${timeoutMs} ms`, fatal: false };
  if (/Unknown RESP type|Protocol error/i.test(message))
    return { reason: 'the server does not speak the Redis protocol (is this the Redis port?)', fatal: true };
  // reported by connect() as a configuration error
  if (/^ERR DB index/i.test(message)) return { reason: message, fatal: false };
  return { reason: code ? `${code}: ${message}` : message, fatal: false };
}

/**
 * Replies with which a reachable Redis refuses a command for a while, whatever the command (the first word of the
 * reply, also of a script's error): out of memory under `noeviction`, a replica after a failover (`READONLY`), a
 * failed snapshot (`MISCONF`), a long script (`BUSY`), a replica without its master, a password changed on the
 * server (`NOAUTH`), a dataset still loading, a cluster resharding or down.
 */
export const SERVER_REFUSAL =
  /^(OOM|READONLY|MISCONF|BUSY|MASTERDOWN|NOREPLICAS|NOAUTH|LOADING|TRYAGAIN|CLUSTERDOWN)\b/;

/** ioredis' and Node's words for a Redis it cannot reach or that is not ready (matched anywhere, any case). */
const UNREACHABLE = new RegExp(
  [
    'Connection is closed',
    "Stream isn't writeable",
    'enableOfflineQueue',
    'Command timed out',
    'Socket timeout',
    'ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|connect ETIMEDOUT',
    'Reached the max retries',
    "Cluster isn't ready",
    'LOADING|CLUSTERDOWN',
  ].join('|'),
  'i',
);

/**
 * Storage errors that mean "Redis cannot serve now" (unreachable, or refusing every write): answered 503, never 500.
 */
export function isConnectionError(err: unknown): boolean {
  const e = err as { name?: string; message?: string; code?: string };
  const message = String(e?.message ?? e?.code ?? '');
  return e?.name === 'MaxRetriesPerRequestError' || SERVER_REFUSAL.test(message) || UNREACHABLE.test(message);
}

/**
 * An ioredis client for `url`. ioredis parses the URL in its constructor and throws a bare `TypeError: Invalid URL`
 * (its `input` property holding the whole URL, password included) or `URIError` (a bad `%` escape in the user or
 * password); both become a ConfigError at `storage.url` naming the redacted URL, without the original as `cause`.
 *
 * @throws {ConfigError} `storage.url` when ioredis cannot read the URL.
 */
export function clientFromUrl(url: string, commandTimeoutMs: number | undefined): Redis {
  try {
    return new Redis(url, failFastRedisOptions(commandTimeoutMs));
  } catch (err) {
    const why =
      (err as Error).name === 'URIError'
        ? 'a malformed % escape in its user name or password'
        : 'not a URL (a bad host or a port above 65535?)';
    throw new ConfigError(
      'storage.url',
      `cannot read ${redactRedisUrl(url)}: ${why}; write it as redis://[:password@]host:port[/db] or ` +
        `rediss://…, percent-encoding special characters`,
    );
  }
}

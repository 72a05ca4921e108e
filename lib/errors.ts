/**
 * Stable error codes thrown by Portcullis itself (protocol errors keep the RFC's `error` strings instead).
 * Callers can `switch` on {@link PortcullisError.code}.
 */
export type PortcullisErrorCode =
  | 'ERR_CONFIG_INVALID'
  | 'ERR_CONFIG_INSECURE'
  | 'ERR_STORAGE_FULL'
  | 'ERR_STORAGE_UNAVAILABLE';

/** Base of every error Portcullis throws. `expose` tells whether `message` is safe to show to a client. */
export class PortcullisError extends Error {
  readonly code: PortcullisErrorCode;
  readonly status: number;
  readonly expose: boolean;

  constructor(code: PortcullisErrorCode, message: string, status = 500, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.status = status;
    this.expose = status < 500;
  }
}

/** One refused option: its dotted path and what to set instead. */
export interface ConfigProblem {
  path: string;
  message: string;
}

/**
 * Thrown by `createServer` when an option is invalid. `path` is the dotted option path (`ttl.accessToken`,
 * `clients[0].redirect_uris`) of the first problem; `problems` lists every problem found in one pass (the
 * production guards report all their refusals at once, so an operator fixes them in one restart).
 */
export class ConfigError extends PortcullisError {
  readonly path: string;
  readonly problems: readonly ConfigProblem[];

  constructor(path: string, message: string, code: 'ERR_CONFIG_INVALID' | 'ERR_CONFIG_INSECURE' = 'ERR_CONFIG_INVALID', options?: ErrorOptions) {
    super(code, `Invalid configuration at "${path}": ${message}`, 500, options);
    this.path = path;
    this.problems = Object.freeze([{ path, message }]);
  }

  /**
   * One error for several problems: the message lists each `path: message` on its own line.
   * @throws nothing; `problems` must not be empty.
   */
  static of(problems: readonly ConfigProblem[], code: 'ERR_CONFIG_INVALID' | 'ERR_CONFIG_INSECURE'): ConfigError {
    if (problems.length === 1) return new ConfigError(problems[0]!.path, problems[0]!.message, code);
    const err = new ConfigError(problems[0]!.path, problems[0]!.message, code);
    err.message = `Invalid configuration (${problems.length} problems):\n${problems.map((p) => `  - "${p.path}": ${p.message}`).join('\n')}`;
    (err as { problems: readonly ConfigProblem[] }).problems = Object.freeze([...problems]);
    return err;
  }
}

/**
 * Thrown by storage when it cannot take a write or answer a read; answered as 503 `temporarily_unavailable`.
 * Shaped like an oidc-provider error (`message` is the OAuth `error` code, `statusCode`, `error_description`)
 * so the provider's own error handler renders it instead of a 500.
 */
export class StorageUnavailableError extends PortcullisError {
  readonly statusCode = 503;
  readonly error_description: string;
  override readonly expose = true;

  constructor(code: 'ERR_STORAGE_FULL' | 'ERR_STORAGE_UNAVAILABLE', description: string) {
    super(code, 'temporarily_unavailable', 503);
    this.error_description = description;
  }
}

/**
 * Thrown by `createServer` (and `RedisStorage.connect`) when the Redis storage cannot be opened at
 * start-up. `message` names the URL, password redacted, and the reason (connection refused, DNS lookup failed,
 * authentication failed, timed out, not a Redis server); `cause` is the underlying ioredis or socket error.
 * Nothing is left running: the client is disconnected before this is thrown.
 */
export class StorageConnectError extends PortcullisError {
  /** The Redis URL with its password replaced by `***` (or `host:port/db` of a client passed in). */
  readonly url: string;
  /** The reason in words, e.g. `connection refused (ECONNREFUSED)`. */
  readonly reason: string;

  constructor(url: string, reason: string, cause?: unknown) {
    super('ERR_STORAGE_UNAVAILABLE', `Redis storage at ${url} is unavailable: ${reason}`, 503, cause === undefined ? undefined : { cause });
    this.url = url;
    this.reason = reason;
  }
}

/**
 * Describes a `JSON.parse` failure without its message, which quotes the input (a key set, client secrets):
 * `not valid JSON (error at character N)` when the parser gave a position, else `not valid JSON`.
 */
export function jsonSyntaxErrorWithoutInput(err: unknown): string {
  const position = /position (\d+)/.exec((err as Error | undefined)?.message ?? '')?.[1];
  return `not valid JSON${position ? ` (error at character ${position})` : ''}`;
}

/**
 * Stable error codes of every error Portcullis throws (protocol errors keep the RFC's `error` strings instead:
 * see {@link OAuthErrorCode}). Callers can `switch` on {@link PortcullisError.code}:
 * - `ERR_CONFIG_INVALID`, `ERR_CONFIG_INSECURE`: {@link ConfigError}, at start-up.
 * - `ERR_STORAGE_FULL`, `ERR_STORAGE_UNAVAILABLE`: {@link StorageUnavailableError} (503), {@link StorageConnectError}.
 * - `ERR_OUTBOUND_URL`, `ERR_OUTBOUND_SCHEME`, `ERR_OUTBOUND_ADDRESS`, `ERR_OUTBOUND_RESPONSE`: `OutboundFetchError`.
 * - `ERR_TOKEN_INACTIVE`, `ERR_TOKEN_OTHER_CLIENT`, `ERR_TOKEN_OTHER_USER`, `ERR_TOKEN_MISSING_SCOPE`,
 *   `ERR_INTROSPECTION_FAILED`: `TokenPairingError` (`portcullis/rp`).
 * - `ERR_ACCESS_TOKEN_INVALID` (RFC 6750 §3.1 `invalid_token`), `ERR_DPOP_PROOF_INVALID` (RFC 9449 §7.1
 *   `invalid_dpop_proof`): `InvalidTokenError` and `InvalidDpopProofError` at the GraphQL endpoint.
 * - `ERR_INVALID_ARGUMENT`: a function of ours was called with a value it cannot take (a host's mistake).
 * - `ERR_CREDENTIAL_TAKEN`: an account store was asked to save a passkey whose credential id another account holds.
 * - `ERR_USAGE`: the `portcullis` command line was given an unknown command or argument (`UsageError`, exit 2).
 * - `ERR_INTERNAL`: an assumption of Portcullis about a dependency no longer holds (a bug; report it).
 */
export type PortcullisErrorCode =
  | 'ERR_CONFIG_INVALID'
  | 'ERR_CONFIG_INSECURE'
  | 'ERR_STORAGE_FULL'
  | 'ERR_STORAGE_UNAVAILABLE'
  | 'ERR_OUTBOUND_URL'
  | 'ERR_OUTBOUND_SCHEME'
  | 'ERR_OUTBOUND_ADDRESS'
  | 'ERR_OUTBOUND_RESPONSE'
  | 'ERR_TOKEN_INACTIVE'
  | 'ERR_TOKEN_OTHER_CLIENT'
  | 'ERR_TOKEN_OTHER_USER'
  | 'ERR_TOKEN_MISSING_SCOPE'
  | 'ERR_INTROSPECTION_FAILED'
  | 'ERR_ACCESS_TOKEN_INVALID'
  | 'ERR_DPOP_PROOF_INVALID'
  | 'ERR_INVALID_ARGUMENT'
  | 'ERR_CREDENTIAL_TAKEN'
  | 'ERR_USAGE'
  | 'ERR_INTERNAL';

/**
 * `error` values of OAuth error responses Portcullis writes itself, each registered in the IANA "OAuth Extensions
 * Error Registry" (RFC 6749 §11.4) or defined by the standard named: RFC 6749 §4.1.2.1 / §5.2, RFC 6750 §3.1,
 * RFC 7591 §3.2.2, RFC 9449 §7.1, OpenID Connect Core §3.1.2.6. There is no registered "too many requests" or
 * "not found": rate limits answer 429 `temporarily_unavailable` with `Retry-After`, unknown documents 404
 * `invalid_request`.
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'access_denied'
  | 'server_error'
  | 'temporarily_unavailable'
  | 'invalid_token'
  | 'insufficient_scope'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'invalid_dpop_proof'
  | 'use_dpop_nonce'
  | 'interaction_required'
  | 'login_required'
  | 'consent_required';

/** Options of {@link PortcullisError}. */
export interface PortcullisErrorOptions extends ErrorOptions {
  /** HTTP status to answer with when the error reaches a response. @default 500 */
  status?: number;
  /** Whether `message` may be shown to a client. @default status < 500 */
  expose?: boolean;
  /** Response headers to send with the error (e.g. `Retry-After`). @default {} */
  headers?: Readonly<Record<string, string>>;
}

/**
 * Base of every error Portcullis throws, shaped like koa's HTTP errors (`status`, `expose`, `headers`) with a
 * stable {@link PortcullisErrorCode} in `code`; a wrapped error is in `cause`. Subclasses with one code also
 * carry it as `static code`, as jose's errors do (`err.code === StorageConnectError.code`).
 *
 * @example
 * ```ts
 * try { await createServer(config); } catch (err) {
 *   if (err instanceof PortcullisError && err.code === 'ERR_CONFIG_INSECURE') console.error(err.message);
 * }
 * ```
 */
export class PortcullisError extends Error {
  readonly code: PortcullisErrorCode;
  readonly status: number;
  readonly expose: boolean;
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: PortcullisErrorCode, message: string, options: PortcullisErrorOptions = {}) {
    const { status = 500, expose = status < 500, headers = {}, ...errorOptions } = options;
    super(message, 'cause' in errorOptions ? errorOptions : undefined);
    this.name = new.target.name;
    this.code = code;
    this.status = status;
    this.expose = expose;
    this.headers = Object.freeze({ ...headers });
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
  declare readonly code: 'ERR_CONFIG_INVALID' | 'ERR_CONFIG_INSECURE';
  readonly path: string;
  readonly problems: readonly ConfigProblem[];

  constructor(
    path: string,
    message: string,
    code: 'ERR_CONFIG_INVALID' | 'ERR_CONFIG_INSECURE' = 'ERR_CONFIG_INVALID',
    options?: ErrorOptions,
  ) {
    super(code, `Invalid configuration at "${path}": ${message}`, { ...options, status: 500 });
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
    err.message =
      `Invalid configuration ` +
      `(${problems.length} problems):\n${problems.map((p) => `  - "${p.path}": ${p.message}`).join('\n')}`;
    (err as { problems: readonly ConfigProblem[] }).problems = Object.freeze([...problems]);
    return err;
  }
}

/**
 * `Retry-After` of a storage outage's 503, seconds: every 503 of ours (OAuth endpoints, pages, GraphQL) sends this one.
 */
export const STORAGE_RETRY_AFTER_SECONDS = '5';

/**
 * Thrown by storage when it cannot take a write (`ERR_STORAGE_FULL`: the memory adapter's `maxEntries`) or
 * answer at all (`ERR_STORAGE_UNAVAILABLE`: Redis down); `status` 503, `expose` true, `headers` carry
 * `Retry-After: 5`, `cause` is the underlying error when there is one. Answered as 503 `temporarily_unavailable`
 * (RFC 6749 §4.1.2.1, §5.2) by Portcullis' own routes; inside oidc-provider's routes the provider boundary
 * (`lib/oidc/storage-outage.ts`) turns it into oidc-provider's own `TemporarilyUnavailable`, with this error as
 * its `cause`.
 */
export class StorageUnavailableError extends PortcullisError {
  declare readonly code: 'ERR_STORAGE_FULL' | 'ERR_STORAGE_UNAVAILABLE';

  constructor(code: 'ERR_STORAGE_FULL' | 'ERR_STORAGE_UNAVAILABLE', message: string, options?: ErrorOptions) {
    super(code, message, {
      ...options,
      status: 503,
      expose: true,
      headers: { 'Retry-After': STORAGE_RETRY_AFTER_SECONDS },
    });
  }
}

/**
 * Thrown by `createServer` (and `RedisStorage.connect`) when the Redis storage cannot be opened at
 * start-up. `message` names the URL, password redacted, and the reason (connection refused, DNS lookup failed,
 * authentication failed, timed out, not a Redis server); `cause` is the underlying ioredis or socket error.
 * Nothing is left running: the client is disconnected before this is thrown.
 */
export class StorageConnectError extends PortcullisError {
  static readonly code = 'ERR_STORAGE_UNAVAILABLE';
  declare readonly code: 'ERR_STORAGE_UNAVAILABLE';
  /** The Redis URL with its password replaced by `***` (or `host:port/db` of a client passed in). */
  readonly url: string;
  /** The reason in words, e.g. `connection refused (ECONNREFUSED)`. */
  readonly reason: string;

  constructor(url: string, reason: string, cause?: unknown) {
    super(StorageConnectError.code, `Redis storage at ${url} is unavailable: ${reason}`, {
      status: 503,
      ...(cause === undefined ? {} : { cause }),
    });
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

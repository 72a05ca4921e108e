import { HeaderMap } from '@apollo/server';
import { GraphQLError } from 'graphql';
import type { Context } from 'koa';
import { StorageUnavailableError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { GraphqlErrorCode, sendGraphqlError } from './errors.js';

/**
 * What the GraphQL endpoint answers while its storage is down, by either path (a token looked up or a DPoP proof
 * recorded before Apollo, the operation rate limit inside it): the words of the storage's own error, which the
 * OAuth endpoints give as `error_description` of their 503 `temporarily_unavailable`.
 */
export const STORAGE_OUTAGE_MESSAGE = 'storage is unavailable; try again later';

/** `Retry-After` of the 503, seconds (as `StorageUnavailableError` and the OAuth endpoints). */
const RETRY_AFTER_SECONDS = '5';

/**
 * The {@link StorageUnavailableError} behind `err`: itself, or the `cause` of the error oidc-provider's model methods
 * throw for it (the provider boundary wraps it in its own `temporarily_unavailable`). `undefined` for anything else.
 */
export function storageOutageOf(err: unknown): StorageUnavailableError | undefined {
  if (err instanceof StorageUnavailableError) return err;
  const cause = (err as { cause?: unknown } | null)?.cause;
  return cause instanceof StorageUnavailableError ? cause : undefined;
}

/** Marks a Koa request state whose outage has been logged (a batch meets it once per operation). */
const LOGGED = Symbol('portcullis.storageOutageLogged');

/**
 * Logs a storage outage met by one GraphQL request at `warn`, once per request, with its request id (`reqId`, as
 * the request log line) and the storage error's code and cause; never the token or the query.
 * @param state the request's Koa `ctx.state` (`requestId` set by the request log).
 */
export function logStorageOutage(logger: Logger | undefined, state: Record<string | symbol, unknown>, err: StorageUnavailableError): void {
  if (state[LOGGED]) return;
  state[LOGGED] = true;
  // Not under `err`: pino's error serializer would add an empty stack; the cause (ioredis) is named in words only.
  const cause = (err.cause as { message?: unknown } | undefined)?.message;
  logger?.warn({ reqId: state.requestId, outage: { code: err.code, message: err.message, ...(typeof cause === 'string' ? { cause } : {}) } }, 'graphql: storage unavailable, answered 503');
}

/**
 * The outage as Apollo's answer, thrown from a plugin hook: a `GraphQLError` with `extensions.code`
 * `TEMPORARILY_UNAVAILABLE` and `extensions.http` 503 with `Retry-After` (Apollo Server takes the status and
 * headers of `extensions.http` and drops it from the body); the storage error is its `originalError`.
 */
export function storageOutageGraphqlError(err: StorageUnavailableError): GraphQLError {
  return new GraphQLError(STORAGE_OUTAGE_MESSAGE, {
    originalError: err,
    extensions: {
      code: GraphqlErrorCode.TEMPORARILY_UNAVAILABLE,
      http: { status: 503, headers: new HeaderMap([['retry-after', RETRY_AFTER_SECONDS]]) },
    },
  });
}

/** The outage answered before Apollo (Koa middleware): 503, `Retry-After`, the same body Apollo's path gives. */
export function sendStorageOutage(ctx: Context): void {
  ctx.set('Retry-After', RETRY_AFTER_SECONDS);
  sendGraphqlError(ctx, 503, GraphqlErrorCode.TEMPORARILY_UNAVAILABLE, STORAGE_OUTAGE_MESSAGE);
}

import { HeaderMap } from '@apollo/server';
import { GraphQLError } from 'graphql';
import type { Context } from 'koa';
import { STORAGE_RETRY_AFTER_SECONDS, type StorageUnavailableError } from '../core/errors.js';
import { GraphqlErrorCode, sendGraphqlError } from './errors.js';

/**
 * What the GraphQL endpoint answers while its storage is down, by either path (a token looked up or a DPoP proof
 * recorded before Apollo, the operation rate limit inside it): the words of the storage's own error, which the
 * OAuth endpoints give as `error_description` of their 503 `temporarily_unavailable`.
 */
export const STORAGE_OUTAGE_MESSAGE = 'storage is unavailable; try again later';

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
      http: { status: 503, headers: new HeaderMap([['retry-after', STORAGE_RETRY_AFTER_SECONDS]]) },
    },
  });
}

/** The outage answered before Apollo (Koa middleware): 503, `Retry-After`, the same body Apollo's path gives. */
export function sendStorageOutage(ctx: Context): void {
  ctx.set('Retry-After', STORAGE_RETRY_AFTER_SECONDS);
  sendGraphqlError(ctx, 503, GraphqlErrorCode.TEMPORARILY_UNAVAILABLE, STORAGE_OUTAGE_MESSAGE);
}

import type { Context } from 'koa';
import type { GraphQLError } from 'graphql';
import { labelGraphqlResponse } from './media-type.js';
import { reportRejection } from './rejections.js';

/**
 * Every `extensions.code` the GraphQL endpoint answers with (UPPER_SNAKE, as Apollo Server's `ApolloServerErrorCode`),
 * as a const object and a type of the same name. Callers switch on `errors[i].extensions.code`:
 * - before Apollo executes anything (transport guard, document gate): `METHOD_NOT_ALLOWED` … `NOT_FOUND`;
 * - `TEMPORARILY_UNAVAILABLE` (503 with `Retry-After`): the storage does not answer, whether met looking up an
 *   opaque token or a DPoP proof's `jti` before Apollo or spending the rate limit inside it; nothing is executed
 *   (the OAuth endpoints answer the same outage 503 `temporarily_unavailable`);
 * - the limits of `rules/` (400, with `extensions.limit`): `MAX_DEPTH_EXCEEDED` … `QUERY_TOO_LARGE`;
 * - `RATE_LIMITED` (429 with `Retry-After`): the operation rate limit is spent; an operation is refused once it is
 *   resolved, before it executes, and a batch as a whole by the document gate, before any of it runs;
 * - during execution: `FORBIDDEN` (a field beyond the token's scopes, its value `null`), and Apollo's own
 *   `INTERNAL_SERVER_ERROR` for a resolver that failed unexpectedly (message
 *   `Unexpected error.` unless `graphql.exposeResolverErrors`, lib/graphql/resolver-errors.ts; no stack trace).
 */
export const GraphqlErrorCode = {
  METHOD_NOT_ALLOWED: 'METHOD_NOT_ALLOWED',
  NOT_ACCEPTABLE: 'NOT_ACCEPTABLE',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  BAD_REQUEST: 'BAD_REQUEST',
  QUERY_MISSING: 'QUERY_MISSING',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  CSRF_TOKEN_INVALID: 'CSRF_TOKEN_INVALID',
  BATCHING_DISABLED: 'BATCHING_DISABLED',
  BATCH_TOO_LARGE: 'BATCH_TOO_LARGE',
  UNTRUSTED_DOCUMENT: 'UNTRUSTED_DOCUMENT',
  INTROSPECTION_DISABLED: 'INTROSPECTION_DISABLED',
  GRAPHQL_PARSE_FAILED: 'GRAPHQL_PARSE_FAILED',
  GRAPHQL_VALIDATION_FAILED: 'GRAPHQL_VALIDATION_FAILED',
  OPERATION_RESOLUTION_FAILURE: 'OPERATION_RESOLUTION_FAILURE',
  SUBSCRIPTIONS_NOT_SUPPORTED: 'SUBSCRIPTIONS_NOT_SUPPORTED',
  BAD_USER_INPUT: 'BAD_USER_INPUT',
  PERSISTED_QUERY_NOT_SUPPORTED: 'PERSISTED_QUERY_NOT_SUPPORTED',
  NOT_FOUND: 'NOT_FOUND',
  MAX_DEPTH_EXCEEDED: 'MAX_DEPTH_EXCEEDED',
  MAX_ALIASES_EXCEEDED: 'MAX_ALIASES_EXCEEDED',
  MAX_ROOT_FIELDS_EXCEEDED: 'MAX_ROOT_FIELDS_EXCEEDED',
  MAX_UNIQUE_FIELDS_EXCEEDED: 'MAX_UNIQUE_FIELDS_EXCEEDED',
  MAX_DIRECTIVES_EXCEEDED: 'MAX_DIRECTIVES_EXCEEDED',
  MAX_RECURSIVE_SELECTIONS_EXCEEDED: 'MAX_RECURSIVE_SELECTIONS_EXCEEDED',
  MAX_COST_EXCEEDED: 'MAX_COST_EXCEEDED',
  MAX_TOKENS_EXCEEDED: 'MAX_TOKENS_EXCEEDED',
  QUERY_TOO_LARGE: 'QUERY_TOO_LARGE',
  FORBIDDEN: 'FORBIDDEN',
  RATE_LIMITED: 'RATE_LIMITED',
  TEMPORARILY_UNAVAILABLE: 'TEMPORARILY_UNAVAILABLE',
  INTERNAL_SERVER_ERROR: 'INTERNAL_SERVER_ERROR',
} as const;
export type GraphqlErrorCode = (typeof GraphqlErrorCode)[keyof typeof GraphqlErrorCode];

/** Codes of errors the GraphQL endpoint answers before Apollo executes anything (`extensions.code`). */
export type GraphqlTransportErrorCode = Exclude<GraphqlErrorCode, 'FORBIDDEN' | 'INTERNAL_SERVER_ERROR'>;

/** "Did you mean …?" in any message (validation, variable coercion of enum values, …): it leaks schema names. */
export const SUGGESTION = /\s*Did you mean[^]*$/;

/** Most errors one response carries: more are dropped (each one is work and bytes an attacker gets for free). */
export const MAX_REPORTED_ERRORS = 10;

/** Writes a GraphQL-over-HTTP style error body: `{ errors: [{ message, extensions: { code } }] }`. */
export function sendGraphqlError(
  ctx: Context,
  status: number,
  code: GraphqlTransportErrorCode,
  message: string,
  extra: Record<string, unknown> = {},
): void {
  writeErrors(ctx, status, [{ message, extensions: { code, ...extra } }]);
}

/**
 * The GraphQL-over-HTTP error envelope `{ errors }`, never cached, under the media type the request's `Accept`
 * negotiates ({@link labelGraphqlResponse}): every refusal of the transport guard, bearer auth and document gate,
 * reported to the host's `graphql.onReject` once written ({@link reportRejection}).
 */
function writeErrors(
  ctx: Context,
  status: number,
  errors: ReadonlyArray<{ message: string; extensions?: Record<string, unknown> }>,
): void {
  ctx.status = status;
  labelGraphqlResponse(ctx);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { errors };
  reportRejection(ctx, status, errors);
}

/**
 * Answers `status` with graphql-js errors, one per kind of problem: errors with the same code and message (ten
 * `Unknown directive "@aa"`, 45 repeated `@skip`) become one, carrying the location of the first; at most
 * {@link MAX_REPORTED_ERRORS} are sent. Each error's `extensions.code` is its own (the limit rules' codes) or
 * `code`; `extensions.limit` is kept; suggestions ("Did you mean …") are removed from messages.
 */
export function sendGraphqlErrors(
  ctx: Context,
  status: number,
  code: GraphqlTransportErrorCode,
  errors: readonly GraphQLError[],
): void {
  const seen = new Set<string>();
  const out: Array<{ message: string; locations?: unknown; extensions: Record<string, unknown> }> = [];
  for (const error of errors) {
    const ownCode = typeof error.extensions?.code === 'string' ? error.extensions.code : code;
    const message = error.message.replace(SUGGESTION, '') || error.message;
    const key = `${ownCode}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const extensions: Record<string, unknown> = { code: ownCode };
    if (error.extensions?.limit !== undefined) extensions.limit = error.extensions.limit;
    out.push({ message, ...(error.locations?.length ? { locations: [error.locations[0]] } : {}), extensions });
    if (out.length === MAX_REPORTED_ERRORS) break;
  }
  writeErrors(ctx, status, out);
}

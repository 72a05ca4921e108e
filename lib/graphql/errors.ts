import type { Context } from 'koa';

/** Codes of errors the GraphQL transport answers before Apollo runs (`extensions.code`). */
export type GraphqlTransportErrorCode =
  | 'METHOD_NOT_ALLOWED'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'BAD_REQUEST'
  | 'QUERY_MISSING'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNAUTHENTICATED'
  | 'CSRF_TOKEN_INVALID'
  | 'BATCHING_DISABLED'
  | 'BATCH_TOO_LARGE'
  | 'UNTRUSTED_DOCUMENT'
  | 'INTROSPECTION_DISABLED'
  | 'GRAPHQL_PARSE_FAILED'
  | 'PERSISTED_QUERY_NOT_SUPPORTED'
  | 'NOT_FOUND'
  | import('./rules/limit-error.js').LimitErrorCode;

/** Writes a GraphQL-over-HTTP style error body: `{ errors: [{ message, extensions: { code } }] }`. */
export function sendGraphqlError(ctx: Context, status: number, code: GraphqlTransportErrorCode, message: string, extra: Record<string, unknown> = {}): void {
  ctx.status = status;
  ctx.type = 'application/json';
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { errors: [{ message, extensions: { code, ...extra } }] };
}

import { bodyParser } from '@koa/bodyparser';
import type { Context, Middleware, Next } from 'koa';
import type Provider from 'oidc-provider';
import { authenticate, bearerToken, InvalidTokenError, type AuthInfo } from './auth-context.js';
import { sendGraphqlError } from './errors.js';

export const MISSING_QUERY_MESSAGE = 'The GraphQL query is missing: send a JSON object with a non-empty "query" string, e.g. {"query":"{ __typename }"}.';

/** Default JSON body limit of the GraphQL endpoint. */
export const GRAPHQL_BODY_LIMIT = '100kb';

/**
 * Refuses what is not a GraphQL request before Apollo sees it: only `POST` with `application/json` whose body is
 * a JSON object with a non-empty string `query` (SPEC area B rule 4: accept only POST with application/json and
 * check that the content really is JSON).
 */
export function graphqlTransportGuard(): Middleware[] {
  const parse = bodyParser({
    enableTypes: ['json'],
    jsonLimit: GRAPHQL_BODY_LIMIT,
    // Non-strict so that valid JSON that is not an object (null, 42) gets the precise "query is missing" answer.
    jsonStrict: false,
    encoding: 'utf-8',
    onError(err, ctx) {
      const status = (err as { status?: number }).status === 413 ? 413 : 400;
      ctx.throw(status, status === 413 ? 'request body too large' : 'request body is not valid JSON');
    },
  });

  async function allowOnlyJsonPost(ctx: Context, next: Next) {
    if (ctx.method !== 'POST') {
      ctx.set('Allow', 'POST');
      return sendGraphqlError(ctx, 405, 'METHOD_NOT_ALLOWED', `${ctx.method} is not allowed here: send a POST with Content-Type application/json.`);
    }
    if (!ctx.is('application/json')) {
      return sendGraphqlError(ctx, 415, 'UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json.');
    }
    return next();
  }

  async function parseJson(ctx: Context, next: Next) {
    try {
      await parse(ctx, async () => {});
    } catch (err) {
      const status = (err as { status?: number }).status === 413 ? 413 : 400;
      return status === 413
        ? sendGraphqlError(ctx, 413, 'PAYLOAD_TOO_LARGE', `The request body is larger than ${GRAPHQL_BODY_LIMIT}.`)
        : sendGraphqlError(ctx, 400, 'BAD_REQUEST', 'The request body is not valid JSON.');
    }
    return next();
  }

  async function requireQuery(ctx: Context, next: Next) {
    const body = ctx.request.body as unknown;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      return sendGraphqlError(ctx, 400, 'QUERY_MISSING', MISSING_QUERY_MESSAGE);
    }
    const { query } = body as Record<string, unknown>;
    if (typeof query !== 'string' || query.trim() === '') {
      return sendGraphqlError(ctx, 400, 'QUERY_MISSING', MISSING_QUERY_MESSAGE);
    }
    return next();
  }

  return [allowOnlyJsonPost, parseJson, requireQuery];
}

/**
 * Resolves the caller from `Authorization: Bearer` into `ctx.state.auth` (`null` when anonymous). An invalid
 * token gets 401 with `WWW-Authenticate: Bearer error="invalid_token"` (RFC 6750 §3).
 */
export function bearerAuth(provider: Provider): Middleware {
  return async function resolveBearer(ctx: Context, next: Next) {
    let auth: AuthInfo | null = null;
    try {
      const token = bearerToken(ctx.get('Authorization') || undefined);
      if (token) auth = await authenticate(provider, token);
    } catch (err) {
      if (!(err instanceof InvalidTokenError)) throw err;
      ctx.set('WWW-Authenticate', `Bearer error="invalid_token", error_description="${err.message}"`);
      return sendGraphqlError(ctx, 401, 'UNAUTHENTICATED', `Invalid access token: ${err.message}.`);
    }
    ctx.state.auth = auth;
    return next();
  };
}

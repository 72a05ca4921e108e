import type { Context, Middleware, Next } from 'koa';
import { PortcullisError } from '../core/errors.js';
import type { CsrfGuard } from '../http/csrf.js';
import { DEFAULTS } from '../../config/defaults.js';
import { graphqlBodyParser, parseBody } from './transport/body.js';
import { answerCors } from './transport/cors.js';
import { CSRF_TOKEN_SUFFIX, csrfTokenEndpoint } from './transport/csrf-token.js';
import { transportOf } from './transport/method-and-type.js';
import { requireQuery } from './transport/requests.js';
import type { TransportSettings } from './transport/settings.js';
import { observeRejections, type GraphqlRejectHook } from './rejections.js';

export { GRAPHQL_BODY_LIMIT } from './transport/body.js';
export { CSRF_TOKEN_SUFFIX } from './transport/csrf-token.js';

/** What the transport guard accepts beyond `POST application/json`. */
export interface TransportOptions {
  /** Path of the endpoint (the form CSRF token is served at `<path>/csrf-token`). */
  path: string;
  /** `GET ?query=`: queries only (Apollo answers 405 to a mutation over GET). Default: `graphql.transports.get`. */
  get?: boolean;
  /** `POST application/x-www-form-urlencoded` with a `csrf_token` field. Default: `graphql.transports.form`. */
  form?: boolean;
  /** Operations allowed in one JSON array; 0 refuses arrays. Default: `graphql.maxBatchSize`. */
  maxBatchSize?: number;
  /** Browser origins allowed by CORS. Default: `graphql.corsOrigins`. */
  corsOrigins?: readonly string[];
  /** CSRF guard of the form transport (signed double-submit cookie). Required when `form` is on. */
  csrf?: CsrfGuard;
  /** Told of every refusal of this request, here or later (`graphql.onReject`). */
  onReject?: GraphqlRejectHook;
}

/** The options resolved once against the defaults (`config/defaults.ts`). */
function transportSettings(options: TransportOptions): TransportSettings {
  const defaults = DEFAULTS.graphql;
  const allowGet = options.get ?? defaults.transports.get;
  const allowForm = options.form ?? defaults.transports.form;
  if (allowForm && !options.csrf) throw new PortcullisError('ERR_INTERNAL', 'the form transport needs a CSRF guard');
  return {
    path: options.path,
    csrfTokenPath: `${options.path}${CSRF_TOKEN_SUFFIX}`,
    allowGet,
    allowForm,
    maxBatch: options.maxBatchSize ?? defaults.maxBatchSize,
    origins: new Set(options.corsOrigins ?? defaults.corsOrigins),
    allow: allowGet ? 'GET, POST' : 'POST',
    csrf: options.csrf,
    parse: graphqlBodyParser(allowForm),
    onReject: options.onReject,
  };
}

/**
 * Refuses what is not a GraphQL request before Apollo sees it (SPEC area B rule 4). By default only `POST`
 * with `application/json` whose body is a JSON object with a non-empty string `query`: other methods get 405
 * with `Allow`, other content types 415, a body that does not parse as its declared type 400, a missing query
 * 400 `QUERY_MISSING`; after the method and content type, an `Accept` header that takes neither GraphQL response
 * type 406 `NOT_ACCEPTABLE` (every answer of the endpoint is labelled with the negotiated type,
 * lib/graphql/media-type.ts). `GET ?query=` and form POSTs are opt-in ({@link TransportOptions}); a form POST must
 * carry the CSRF token. CORS headers only for the configured origins. The accepted requests are left in
 * `ctx.state.graphqlRequests` for the document gate.
 */
export function graphqlTransportGuard(options: TransportOptions = { path: DEFAULTS.graphql.path }): Middleware[] {
  const settings = transportSettings(options);
  // The steps in order, each a named function of lib/graphql/transport/: CORS (cors.ts), the CSRF-token endpoint
  // (csrf-token.ts), method, content type and Accept (method-and-type.ts), the body (body.ts), the request members
  // (requests.ts). Run from one middleware: a single async layer in the request's Koa chain, the content type
  // matched once (the GraphQL hot path).
  return [
    async function guardTransport(ctx: Context, next: Next) {
      if (settings.onReject) observeRejections(ctx, settings.onReject);
      if (answerCors(settings, ctx)) return;
      if (ctx.path === settings.csrfTokenPath) return csrfTokenEndpoint(settings, ctx);
      const transport = transportOf(settings, ctx);
      if (transport === undefined) return;
      if (transport !== 'get' && !(await parseBody(settings.parse, ctx, transport))) return;
      const items = requireQuery(settings, ctx, transport);
      if (!items) return;
      ctx.state.graphqlRequests = items;
      return next();
    },
  ];
}

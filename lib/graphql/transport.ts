import { bodyParser } from '@koa/bodyparser';
import type { Context, Middleware, Next } from 'koa';
import { PortcullisError } from '../core/errors.js';
import type { CsrfGuard } from '../http/csrf.js';
import { sendGraphqlError } from './errors.js';
import { graphqlResponseType } from './media-type.js';
import { DEFAULTS } from '../../config/defaults.js';
import { formRequest, forApollo, refused, requestItem, urlRequest, type GraphqlRequestItem, type ItemError } from './request-params.js';

/** Default JSON body limit of the GraphQL endpoint. */
export const GRAPHQL_BODY_LIMIT = '100kb';

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
}

/** A refused batch: batching off, or more operations than allowed. */
interface BatchError { status: 400; code: 'BATCHING_DISABLED' | 'BATCH_TOO_LARGE'; message: string }

/** Path suffix of the endpoint that hands out the form transport's CSRF token. */
export const CSRF_TOKEN_SUFFIX = '/csrf-token';

/** The `next` handed to the body parser: nothing follows it (the guard goes on itself once the body is read). */
const parsed = async (): Promise<void> => {};

/** The body parser's message for a prototype key, kept from its `onError` to the answer. */
const PROTOTYPE_KEY = 'prototype key';
/** `charset` values that name UTF-8. */
const UTF8 = /^utf-?8$/i;

/**
 * Every `charset` parameter of a Content-Type value, unquoted. Parameter names are case-insensitive (RFC 9110
 * §5.6.6), so `CHARSET=utf-16` is one; a repeated one is each read (Koa's `ctx.request.charset` keeps the last
 * only, and nothing when the value does not parse). A value that merely contains the word (`foo=charset`) is none.
 */
function charsetsOf(contentType: string): string[] {
  return contentType.split(';').slice(1).map((param) => param.split('='))
    .filter(([name]) => name!.trim().toLowerCase() === 'charset')
    .map(([, value = '']) => value.trim().replace(/^"(.*)"$/, '$1'));
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
  const defaults = DEFAULTS.graphql;
  const allowGet = options.get ?? defaults.transports.get;
  const allowForm = options.form ?? defaults.transports.form;
  const maxBatch = options.maxBatchSize ?? defaults.maxBatchSize;
  const origins = new Set(options.corsOrigins ?? defaults.corsOrigins);
  const allow = allowGet ? 'GET, POST' : 'POST';
  if (allowForm && !options.csrf) throw new PortcullisError('ERR_INTERNAL', 'the form transport needs a CSRF guard');

  const parse = bodyParser({
    enableTypes: allowForm ? ['json', 'form'] : ['json'],
    jsonLimit: GRAPHQL_BODY_LIMIT,
    formLimit: GRAPHQL_BODY_LIMIT,
    // Non-strict so that valid JSON that is not an object (null, 42) gets the precise "query is missing" answer.
    jsonStrict: false,
    encoding: 'utf-8',
    onError(err, ctx) {
      const { status, message } = err as { status?: number; message?: string };
      // 415: a Content-Encoding the body reader cannot undo (`compress`, `zstd`, twice `gzip`).
      if (status === 413 || status === 415) ctx.throw(status, message ?? '');
      // secure-json-parse (inside the body parser) refuses prototype keys, which JSON itself allows.
      ctx.throw(400, /forbidden prototype property/.test(message ?? '') ? PROTOTYPE_KEY : 'request body does not parse');
    },
  });

  /** CORS headers for configured origins; answers a preflight itself (returns true). */
  function cors(ctx: Context): boolean {
    const origin = ctx.get('Origin');
    if (origin && origins.has(origin)) {
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.set('Access-Control-Expose-Headers', 'Retry-After, WWW-Authenticate');
      ctx.vary('Origin');
      if (ctx.method === 'OPTIONS' && ctx.get('Access-Control-Request-Method')) {
        ctx.set('Access-Control-Allow-Methods', allow);
        ctx.set('Access-Control-Allow-Headers', 'Content-Type, Authorization, DPoP');
        ctx.set('Access-Control-Max-Age', '600');
        ctx.status = 204;
        return true;
      }
    } else if (origin) {
      ctx.vary('Origin');
    }
    return false;
  }

  const csrfTokenPath = `${options.path}${CSRF_TOKEN_SUFFIX}`;
  function csrfTokenEndpoint(ctx: Context): void {
    if (!allowForm || ctx.method !== 'GET') return sendGraphqlError(ctx, 404, 'NOT_FOUND', 'Not found: the form transport is off or this is not a GET.');
    const token = options.csrf!.issue(ctx, { scope: options.path, binding: '' });
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { csrf_token: token };
  }

  /**
   * The request's transport: `get`, `json` or `form`, or `undefined` once it has been answered: 405 with `Allow`,
   * 415, then 406 for an `Accept` that takes no GraphQL response type (what was sent is judged before what is
   * wanted back, so a browser's `Accept: text/html` still learns that its method or content type is refused).
   */
  function transportOf(ctx: Context): 'get' | 'json' | 'form' | undefined {
    const get = ctx.method === 'GET' && allowGet;
    if (!get && ctx.method !== 'POST') {
      ctx.set('Allow', allow);
      sendGraphqlError(ctx, 405, 'METHOD_NOT_ALLOWED', `${ctx.method} is not allowed here: send a POST with Content-Type application/json${allowGet ? ' or a GET with ?query=' : ''}.`);
      return undefined;
    }
    const transport = get ? 'get' : bodyTypeOf(ctx);
    // GraphQL over HTTP §Body: with an Accept header that takes neither response type, 406 and nothing processed.
    if (transport && graphqlResponseType(ctx) === undefined) {
      const message = 'The Accept header takes neither application/graphql-response+json nor application/json.';
      sendGraphqlError(ctx, 406, 'NOT_ACCEPTABLE', message);
      return undefined;
    }
    return transport;
  }

  /** The body's transport by its Content-Type, `json` or `form`; `undefined` once answered 415. */
  function bodyTypeOf(ctx: Context): 'json' | 'form' | undefined {
    const type = ctx.is('application/json') ? 'json' : allowForm && ctx.is('application/x-www-form-urlencoded') ? 'form' : undefined;
    if (!type) {
      sendGraphqlError(ctx, 415, 'UNSUPPORTED_MEDIA_TYPE', `Content-Type must be application/json${allowForm ? ' or application/x-www-form-urlencoded' : ''}.`);
      return undefined;
    }
    // The body is read as UTF-8 (JSON in a network exchange is UTF-8, RFC 8259 §8.1): a body declared in another
    // charset would be read as something other than what the client meant.
    if (charsetsOf(ctx.get('Content-Type')).some((charset) => !UTF8.test(charset))) {
      sendGraphqlError(ctx, 415, 'UNSUPPORTED_MEDIA_TYPE', 'The request body must be UTF-8: send charset=utf-8 or no charset.');
      return undefined;
    }
    return type;
  }

  /** Parses the body into `ctx.request.body`; answers 413, 415 or 400 itself (returns false). */
  async function parseBody(ctx: Context, transport: 'json' | 'form'): Promise<boolean> {
    try {
      await parse(ctx, parsed);
    } catch (err) {
      const { status, message } = err as { status?: number; message?: string };
      if (status === 413) sendGraphqlError(ctx, 413, 'PAYLOAD_TOO_LARGE', `The request body is larger than ${GRAPHQL_BODY_LIMIT}.`);
      else if (status === 415) sendGraphqlError(ctx, 415, 'UNSUPPORTED_MEDIA_TYPE', 'This Content-Encoding is not supported: send the body as is, or compressed once with gzip, deflate or br.');
      else if (message === PROTOTYPE_KEY) sendGraphqlError(ctx, 400, 'BAD_REQUEST', 'The request body holds a "__proto__" member, which is refused.');
      else sendGraphqlError(ctx, 400, 'BAD_REQUEST', transport === 'json' ? 'The request body is not valid JSON.' : 'The request body is not a valid form.');
      return false;
    }
    return true;
  }

  /** The request of a GET; the URL Apollo reads is left without the parameters that mean none (`variables=`). */
  function urlItem(ctx: Context): GraphqlRequestItem | ItemError {
    const params = new URLSearchParams(ctx.querystring);
    const before = params.size;
    const item = urlRequest(params);
    if (!refused(item) && params.size !== before) ctx.querystring = params.toString();
    return item;
  }

  /** The request of a form POST, handed to Apollo as the JSON body it reads; `undefined` once refused. */
  function formItem(ctx: Context): GraphqlRequestItem | ItemError | undefined {
    // The fields as sent, from the raw body: the form parser (qs) drops names of Object.prototype (`constructor`,
    // `toString`, `__proto__[x]`) before anything could refuse them. A host's body parser in front leaves only its
    // parsed object.
    const raw = (ctx.request as { rawBody?: unknown }).rawBody;
    const fields: Array<[string, unknown]> = typeof raw === 'string' ? [...new URLSearchParams(raw)] : Object.entries(ctx.request.body as object);
    const tokens = fields.filter(([name]) => name === 'csrf_token');
    // A cross-site HTML form cannot read our cookie's partner token: without it, nothing runs.
    if (!options.csrf!.verify(ctx, { scope: options.path, binding: '' }, tokens.length === 1 ? tokens[0]![1] : undefined)) {
      sendGraphqlError(ctx, 403, 'CSRF_TOKEN_INVALID', `The csrf_token field is missing or does not match its cookie: get one from GET ${options.path}${CSRF_TOKEN_SUFFIX}.`);
      return undefined;
    }
    const item = formRequest(fields);
    if (refused(item)) return item;
    // Apollo executes JSON bodies only; the form has been checked, so hand it over as one.
    ctx.request.body = Object.fromEntries(Object.entries(item).filter(([, v]) => v !== undefined));
    ctx.request.headers['content-type'] = 'application/json';
    return item;
  }

  /** The requests of a JSON body: one object, or a batch (an array) when `maxBatchSize` allows it. */
  function jsonItems(body: unknown): GraphqlRequestItem[] | ItemError | BatchError {
    if (!Array.isArray(body) || body.length === 0) {
      const item = requestItem(body);
      return refused(item) ? item : [item];
    }
    if (maxBatch === 0) return { status: 400, code: 'BATCHING_DISABLED', message: 'Batched requests (JSON arrays) are not accepted here: send one operation per request.' };
    if (body.length > maxBatch) return { status: 400, code: 'BATCH_TOO_LARGE', message: `A batch may hold at most ${maxBatch} operations.` };
    const items = body.map(requestItem);
    return items.find(refused) ?? items as GraphqlRequestItem[];
  }

  /** The request's GraphQL requests, or nothing once a refusal has been answered. */
  function requireQuery(ctx: Context, transport: 'get' | 'json' | 'form'): GraphqlRequestItem[] | void {
    const found = transport === 'get' ? urlItem(ctx) : transport === 'form' ? formItem(ctx) : jsonItems(ctx.request.body);
    if (found === undefined) return;
    if ('code' in found) return sendGraphqlError(ctx, found.status, found.code, found.message);
    if (transport === 'json') ctx.request.body = forApollo(ctx.request.body);
    return Array.isArray(found) ? found : [found];
  }

  // One middleware, the steps in order (CORS, CSRF-token endpoint, method and content type, body, request
  // members): a single async layer in the request's Koa chain, and the content type matched once.
  async function guardTransport(ctx: Context, next: Next) {
    if (cors(ctx)) return;
    if (ctx.path === csrfTokenPath) return csrfTokenEndpoint(ctx);
    const transport = transportOf(ctx);
    if (transport === undefined) return;
    if (transport !== 'get' && !await parseBody(ctx, transport)) return;
    const items = requireQuery(ctx, transport);
    if (!items) return;
    ctx.state.graphqlRequests = items;
    return next();
  }

  return [guardTransport];
}

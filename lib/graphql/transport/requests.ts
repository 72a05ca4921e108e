import type { Context } from 'koa';
import { sendGraphqlError } from '../errors.js';
import {
  formRequest,
  forApollo,
  refused,
  requestItem,
  urlRequest,
  type GraphqlRequestItem,
  type ItemError,
} from '../request-params.js';
import { CSRF_TOKEN_SUFFIX } from './csrf-token.js';
import type { Transport, TransportSettings } from './settings.js';

/** A refused batch: batching off, or more operations than allowed. */
interface BatchError {
  status: 400;
  code: 'BATCHING_DISABLED' | 'BATCH_TOO_LARGE';
  message: string;
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
function formItem(settings: TransportSettings, ctx: Context): GraphqlRequestItem | ItemError | undefined {
  // The fields as sent, from the raw body: the form parser (qs) drops names of Object.prototype (`constructor`,
  // `toString`, `__proto__[x]`) before anything could refuse them. A host's body parser in front leaves only its
  // parsed object.
  const raw = (ctx.request as { rawBody?: unknown }).rawBody;
  const fields: Array<[string, unknown]> =
    typeof raw === 'string' ? [...new URLSearchParams(raw)] : Object.entries(ctx.request.body as object);
  const tokens = fields.filter(([name]) => name === 'csrf_token');
  // A cross-site HTML form cannot read our cookie's partner token: without it, nothing runs.
  if (
    !settings.csrf!.verify(ctx, { scope: settings.path, binding: '' }, tokens.length === 1 ? tokens[0]![1] : undefined)
  ) {
    const message =
      `The csrf_token field is missing or does not match its cookie: get one from ` +
      `GET ${settings.path}${CSRF_TOKEN_SUFFIX}.`;
    sendGraphqlError(ctx, 403, 'CSRF_TOKEN_INVALID', message);
    return undefined;
  }
  const item = formRequest(fields);
  if (refused(item)) return item;
  // Apollo executes JSON bodies only; the form has been checked, so hand it over as one.
  ctx.request.body = Object.fromEntries(Object.entries(item).filter(([, v]) => v !== undefined));
  ctx.request.headers['content-type'] = 'application/json';
  return item;
}

/** The requests of a JSON body: one object, or a batch (an array) when `maxBatch` allows it. */
function jsonItems(maxBatch: number, body: unknown): GraphqlRequestItem[] | ItemError | BatchError {
  if (!Array.isArray(body) || body.length === 0) {
    const item = requestItem(body);
    return refused(item) ? item : [item];
  }
  if (maxBatch === 0) {
    return {
      status: 400,
      code: 'BATCHING_DISABLED',
      message: 'Batched requests (JSON arrays) are not accepted here: send one operation per request.',
    };
  }
  if (body.length > maxBatch)
    return { status: 400, code: 'BATCH_TOO_LARGE', message: `A batch may hold at most ${maxBatch} operations.` };
  const items = body.map(requestItem);
  return items.find(refused) ?? (items as GraphqlRequestItem[]);
}

/** The request's GraphQL requests (GET parameters, form fields or JSON body), or nothing once a refusal is answered. */
export function requireQuery(
  settings: TransportSettings,
  ctx: Context,
  transport: Transport,
): GraphqlRequestItem[] | void {
  const found =
    transport === 'get'
      ? urlItem(ctx)
      : transport === 'form'
        ? formItem(settings, ctx)
        : jsonItems(settings.maxBatch, ctx.request.body);
  if (found === undefined) return;
  if ('code' in found) return sendGraphqlError(ctx, found.status, found.code, found.message);
  if (transport === 'json') ctx.request.body = forApollo(ctx.request.body);
  return Array.isArray(found) ? found : [found];
}

import type { Context } from 'koa';
import { sendGraphqlError } from '../errors.js';
import { graphqlResponseType } from '../media-type.js';
import type { Transport, TransportSettings } from './settings.js';

/** `charset` values that name UTF-8. */
const UTF8 = /^utf-?8$/i;

/**
 * Every `charset` parameter of a Content-Type value, unquoted. Parameter names are case-insensitive (RFC 9110
 * §5.6.6), so `CHARSET=utf-16` is one; a repeated one is each read (Koa's `ctx.request.charset` keeps the last
 * only, and nothing when the value does not parse). A value that merely contains the word (`foo=charset`) is none.
 */
function charsetsOf(contentType: string): string[] {
  return contentType
    .split(';')
    .slice(1)
    .map((param) => param.split('='))
    .filter(([name]) => name!.trim().toLowerCase() === 'charset')
    .map(([, value = '']) => value.trim().replace(/^"(.*)"$/, '$1'));
}

/** The body's transport by its Content-Type, `json` or `form`; `undefined` once answered 415. */
function bodyTypeOf(settings: TransportSettings, ctx: Context): 'json' | 'form' | undefined {
  const { allowForm } = settings;
  const type = ctx.is('application/json')
    ? 'json'
    : allowForm && ctx.is('application/x-www-form-urlencoded')
      ? 'form'
      : undefined;
  if (!type) {
    const also = allowForm ? ' or application/x-www-form-urlencoded' : '';
    sendGraphqlError(ctx, 415, 'UNSUPPORTED_MEDIA_TYPE', `Content-Type must be application/json${also}.`);
    return undefined;
  }
  // The body is read as UTF-8 (JSON in a network exchange is UTF-8, RFC 8259 §8.1): a body declared in another
  // charset would be read as something other than what the client meant.
  if (charsetsOf(ctx.get('Content-Type')).some((charset) => !UTF8.test(charset))) {
    sendGraphqlError(
      ctx,
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      'The request body must be UTF-8: send charset=utf-8 or no charset.',
    );
    return undefined;
  }
  return type;
}

/**
 * The request's transport: `get`, `json` or `form`, or `undefined` once it has been answered: 405 with `Allow`,
 * 415, then 406 for an `Accept` that takes no GraphQL response type (what was sent is judged before what is
 * wanted back, so a browser's `Accept: text/html` still learns that its method or content type is refused).
 */
export function transportOf(settings: TransportSettings, ctx: Context): Transport | undefined {
  const get = ctx.method === 'GET' && settings.allowGet;
  if (!get && ctx.method !== 'POST') {
    ctx.set('Allow', settings.allow);
    const orGet = settings.allowGet ? ' or a GET with ?query=' : '';
    sendGraphqlError(
      ctx,
      405,
      'METHOD_NOT_ALLOWED',
      `${ctx.method} is not allowed here: send a POST with Content-Type application/json${orGet}.`,
    );
    return undefined;
  }
  const transport = get ? 'get' : bodyTypeOf(settings, ctx);
  // GraphQL over HTTP §Body: with an Accept header that takes neither response type, 406 and nothing processed.
  if (transport && graphqlResponseType(ctx) === undefined) {
    const message = 'The Accept header takes neither application/graphql-response+json nor application/json.';
    sendGraphqlError(ctx, 406, 'NOT_ACCEPTABLE', message);
    return undefined;
  }
  return transport;
}

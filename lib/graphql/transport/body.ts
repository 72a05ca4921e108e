import { bodyParser } from '@koa/bodyparser';
import type { Context, Middleware } from 'koa';
import { sendGraphqlError } from '../errors.js';

/** Default JSON body limit of the GraphQL endpoint. */
export const GRAPHQL_BODY_LIMIT = '100kb';

/** The body parser's message for a prototype key, kept from its `onError` to the answer. */
const PROTOTYPE_KEY = 'prototype key';

/** The `next` handed to the body parser: nothing follows it (the guard goes on itself once the body is read). */
const parsed = async (): Promise<void> => {};

/** The endpoint's body parser: JSON (and forms when `allowForm`), UTF-8, {@link GRAPHQL_BODY_LIMIT} each. */
export function graphqlBodyParser(allowForm: boolean): Middleware {
  return bodyParser({
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
      ctx.throw(
        400,
        /forbidden prototype property/.test(message ?? '') ? PROTOTYPE_KEY : 'request body does not parse',
      );
    },
  }) as Middleware;
}

/** Parses the body into `ctx.request.body` with `parse`; answers 413, 415 or 400 itself (returns false). */
export async function parseBody(parse: Middleware, ctx: Context, transport: 'json' | 'form'): Promise<boolean> {
  try {
    await parse(ctx, parsed);
  } catch (err) {
    const { status, message } = err as { status?: number; message?: string };
    if (status === 413)
      sendGraphqlError(ctx, 413, 'PAYLOAD_TOO_LARGE', `The request body is larger than ${GRAPHQL_BODY_LIMIT}.`);
    else if (status === 415) {
      const message =
        'This Content-Encoding is not supported: send the body as is, or compressed once with gzip, deflate or br.';
      sendGraphqlError(ctx, 415, 'UNSUPPORTED_MEDIA_TYPE', message);
    } else if (message === PROTOTYPE_KEY) {
      sendGraphqlError(ctx, 400, 'BAD_REQUEST', 'The request body holds a "__proto__" member, which is refused.');
    } else {
      sendGraphqlError(
        ctx,
        400,
        'BAD_REQUEST',
        transport === 'json' ? 'The request body is not valid JSON.' : 'The request body is not a valid form.',
      );
    }
    return false;
  }
  return true;
}

import type { IncomingMessage } from 'node:http';
import type { Context, Middleware, Next } from 'koa';
import { hostBodyAdopted, refuseLargeBody, replayBody } from './body-limit.js';
import { writeError } from './error-handler.js';
import { PortcullisError } from '../core/errors.js';

/** The request as a host app's body parser may have left it (`@koa/bodyparser` with `patchNode`, Express). */
type ParsedRequest = IncomingMessage & { body?: unknown; rawBody?: unknown };

/** What the answer names when a host parser read the body and kept nothing we can use. */
export const HOST_BODY_PARSER_DESCRIPTION =
  'A body parser of the host application read this request body before Portcullis, ' +
  'and left neither the raw body (ctx.request.rawBody, req.rawBody) nor a parsed one (ctx.request.body, req.body). ' +
  "Mount server.middleware() before the host's body parser (Koa), or server.handler() before it (Express, Fastify, " +
  'node:http), or use a parser that keeps the raw body (@koa/bodyparser does).';

/**
 * Middleware on Portcullis' routes that makes a host app's body parser in front of them harmless. Our parsers
 * (oidc-provider's, `@koa/bodyparser` for pages and GraphQL) read the request stream; when a host parser has
 * already read it:
 * - oidc-provider (`replayStream`) gets the raw text (`ctx.request.rawBody`, as `@koa/bodyparser` and
 *   `koa-bodyparser` keep it) replayed as the request stream, which it reads and parses exactly as if nobody had
 *   read it (and without its "upstream middleware parser" warning); a raw text that does not match
 *   `Content-Length`, or a parsed object alone, goes to it as `req.body` (its documented fallback,
 *   `lib/shared/selective_body.js`);
 * - our pages and GraphQL use the parsed `ctx.request.body` (`@koa/bodyparser` skips parsing when it is set);
 * - the body limit of the route still applies to the raw text: larger gets `413 invalid_request`;
 * - a request whose body was read with nothing kept gets `500 server_error` naming the fix (mount Portcullis
 *   before the parser), instead of oidc-provider's bare "failed to parse the request body".
 * A stream nobody has read costs one property check.
 * @param limitBytes the route's body limit in bytes (oidc-provider: 56 KiB; pages 16 KiB; GraphQL 100 KiB).
 * @param replayStream replay the raw text as the request stream (oidc-provider's routes). Default false.
 */
export function adoptHostBody(limitBytes: number, replayStream = false): Middleware {
  return function adoptHostBody(ctx: Context, next: Next) {
    const req = ctx.req as ParsedRequest;
    if (req.readable || !ctx.get('content-type')) return next();
    const request = ctx.request as Context['request'] & { body?: unknown; rawBody?: unknown };
    const raw =
      typeof request.rawBody === 'string' ? request.rawBody : typeof req.rawBody === 'string' ? req.rawBody : undefined;
    if (raw !== undefined && Buffer.byteLength(raw) > limitBytes) {
      return refuseLargeBody(ctx, limitBytes);
    }
    const parsed = request.body ?? req.body;
    if (raw === undefined && (parsed === undefined || parsed === null)) {
      ctx.app.emit('error', new PortcullisError('ERR_INVALID_ARGUMENT', HOST_BODY_PARSER_DESCRIPTION), ctx);
      return writeError(ctx, 500, 'server_error', HOST_BODY_PARSER_DESCRIPTION, { page: false });
    }
    hostBodyAdopted.set(req, true);
    if (
      replayStream &&
      raw !== undefined &&
      (ctx.request.length === undefined || Buffer.byteLength(raw) === ctx.request.length)
    )
      replayBody(req, Buffer.from(raw));
    if (req.body === undefined) req.body = raw ?? parsed;
    if (request.body === undefined && parsed !== undefined) request.body = parsed;
    return next();
  };
}

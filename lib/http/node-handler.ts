import type { IncomingMessage, ServerResponse } from 'node:http';
import Koa, { type Context, type Middleware, type Next } from 'koa';
import { requestSlot } from '../core/request-slot.js';
import { pinAppToIssuer } from './issuer-host.js';

/**
 * A Connect-style continuation, called without arguments: the host's next middleware or route (Express `next`,
 * Fastify's hook `done`).
 */
export type NodeNext = () => void;

/**
 * A Node request handler serving Portcullis (see {@link NodeHandlerSource.handler}): `(req, res, next?)`, the
 * signature of `node:http` request listeners and of Express/Connect middleware. Returns nothing (not a promise), so
 * that it can also be a Fastify `onRequest` hook body with `done` as `next`.
 */
export type NodeRequestHandler = (req: IncomingMessage, res: ServerResponse, next?: NodeNext) => void;

/** What `PortcullisServer` (lib/server.ts) gains from this module: `server.handler()`. */
export interface NodeHandlerSource {
  /**
   * The whole server as a Node request handler, for hosts that are not Koa: Express 5 (`app.use(handler)`),
   * Fastify 5 (an `onRequest` hook: `(request, reply, done) => handler(request.raw, reply.raw, done)`) and plain
   * `node:http` (`createServer(handler)`, or `(req, res) => handler(req, res, hostRoutes)`). Guide:
   * docs/guides/hosts.md.
   *
   * It serves what `middleware()` serves in a Koa host, at the host's root: the authorization server under the
   * issuer's path (`https://host/auth` → `/auth/token`, `/auth/.well-known/openid-configuration`), RFC 8414's
   * path-inserted `/.well-known/oauth-authorization-server/auth` at the root, GraphQL at `graphql.path`. For any
   * other path it calls `next()` once Portcullis is done with the request (the response's status as it was, no
   * body); without `next` it answers them as the standalone server does (logged, `404 invalid_request` JSON).
   * Mounted by Express at the issuer's path (`app.use('/auth', handler)`) it works too (from `req.originalUrl`),
   * except for the path-inserted metadata and a GraphQL path outside the mount, which it never sees.
   *
   * Place it before the host's body parsers. After one, the raw body it keeps (`req.rawBody` as a string, e.g. from
   * body-parser's `verify`) is replayed to oidc-provider, else the parsed `req.body` is used; a request whose body
   * was read with neither kept is answered `500 server_error` naming the mount order, and logged.
   * The issuer Host check, `proxy` and `proxyHops` are Portcullis' own options (Express' `trust proxy` and Fastify's
   * `trustProxy` do not change them). Each call builds a new handler; build it once.
   */
  handler(): NodeRequestHandler;
}

/** Marks a request that none of Portcullis' routes answered: the host's `next` runs once the Koa chain is done. */
const handedOn = requestSlot<true | undefined>('portcullis.nodeHandler.handedOn');

type ExpressRequest = IncomingMessage & { originalUrl?: unknown };

/**
 * Builds {@link NodeHandlerSource.handler}. `routes` is the route table a Koa host mounts (`server.middleware()`),
 * run in a Koa app of its own with the standalone app's `proxy`, `maxIpsCount` and cookie keys, pinned to the
 * issuer like it, its errors sent to the standalone app's `error` listener (the server's logger). A request without
 * `next` goes to the standalone app itself (`standalone.callback()`).
 */
export function nodeHandler(standalone: Koa, routes: Middleware, issuer: string): NodeRequestHandler {
  const app = new Koa({ proxy: standalone.proxy, maxIpsCount: standalone.maxIpsCount });
  app.keys = standalone.keys;
  app.silent = true;
  app.on('error', (err: Error, ctx: Context) => standalone.emit('error', err, ctx));
  pinAppToIssuer(app, issuer);
  app.use(function fromOriginalUrl(ctx: Context, next: Next) {
    // Express mounted us under a path (`app.use('/auth', handler)`): `req.url` lost it, `req.originalUrl` has it.
    // The route table matches the path asked for (`ctx.originalUrl`), as under koa-mount.
    const original = (ctx.req as ExpressRequest).originalUrl;
    if (typeof original === 'string' && original !== ctx.req.url && original.startsWith('/')) {
      ctx.originalUrl = original;
      ctx.request.originalUrl = original;
    }
    return routes(ctx, next);
  });
  app.use(function handOn(ctx: Context) {
    // A route that answered may still call next() (Apollo's Koa middleware does): Koa sends its answer.
    if (ctx.body != null || ctx.status !== 404 || ctx.res.headersSent) return;
    ctx.respond = false;
    handedOn.set(ctx.req, true);
  });
  const routed = app.callback();
  const alone = standalone.callback();

  return function portcullisHandler(req, res, next) {
    if (!next) {
      void alone(req, res);
      return;
    }
    const status = res.statusCode;
    // The host's `next` runs after the Koa chain has unwound (`ctx.path` and `req.url` restored, nothing of ours
    // still running): Koa answers errors itself, so the promise does not reject.
    void routed(req, res).then(() => {
      if (!handedOn.get(req)) return;
      handedOn.set(req, undefined);
      res.statusCode = status; // Koa starts every response as 404
      next();
    });
  };
}

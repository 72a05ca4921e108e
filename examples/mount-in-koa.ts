/**
 * Mounting Portcullis into an existing Koa app under a path prefix. The host keeps its own router, body parser,
 * session middleware and routes; Portcullis serves the OAuth 2.0 / OpenID Connect endpoints, the login,
 * consent and account pages under the issuer's path (`https://host/auth` → `/auth/…`, plus RFC 8414's
 * `/.well-known/oauth-authorization-server/auth` at the root), and its GraphQL API at `graphql.path`, which may
 * be elsewhere (`/api/graphql`).
 *
 * The prefix comes from the issuer alone: `app.use(portcullis.middleware())` at the host's root, no second
 * setting that could disagree with it. `koa-mount('/auth', portcullis.middleware())` works as well, except
 * for the path-inserted metadata URL, which lies outside the mount.
 */
import { randomBytes } from 'node:crypto';
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import Koa, { type Middleware } from 'koa';
import { createServer, type PortcullisConfig, type PortcullisServer } from '../lib/index.js';

/** A stand-in for the host's own session middleware (koa-session and the like): a cookie and `ctx.state.session`. */
function hostSession(): Middleware {
  const sessions = new Map<string, { visits: number }>();
  return async function hostSession(ctx, next) {
    let id = ctx.cookies.get('host.sid');
    if (!id || !sessions.has(id)) {
      id = randomBytes(16).toString('base64url');
      sessions.set(id, { visits: 0 });
      ctx.cookies.set('host.sid', id, { httpOnly: true, sameSite: 'lax', path: '/' });
    }
    ctx.state.session = sessions.get(id);
    await next();
  };
}

/**
 * Where the host's body parser sits relative to Portcullis (see docs/guides/hosts.md "Mounting into an existing Koa
 * app"): `after` it, the recommended order and the default, or `before` it, which works except that a malformed body
 * to a route of Portcullis gets the host parser's answer instead of the protocol's error.
 */
export type BodyParserPlacement = 'before' | 'after';

/**
 * Builds the host app. `config.issuer` names the prefix (`http://localhost:3000/auth`); `graphql.path` is an
 * absolute path on the host (`/api/graphql`); `opts.bodyParser` defaults to `after` (Portcullis first).
 */
export async function buildHostApp(
  config: PortcullisConfig,
  opts: { bodyParser?: BodyParserPlacement } = {},
): Promise<{ app: Koa; portcullis: PortcullisServer; close: () => Promise<void> }> {
  const portcullis = await createServer(config);
  const app = new Koa();
  const router = new Router();
  router.get('/', (ctx) => {
    ctx.body = { hello: 'from the host app' };
  });
  router.get('/api/visits', (ctx) => {
    const session = ctx.state.session as { visits: number };
    ctx.body = { visits: ++session.visits };
  });
  router.post('/api/echo', (ctx) => {
    ctx.body = { received: ctx.request.body };
  });

  app.use(hostSession());
  // Portcullis first: its routes read their own bodies, so a malformed one gets the protocol's error (OAuth
  // `invalid_request`, GraphQL `BAD_REQUEST`). A host that already parses every body globally can keep its parser
  // first: Portcullis then uses the raw body it keeps, but the parser answers a malformed body itself.
  if (opts.bodyParser === 'before') app.use(bodyParser());
  app.use(portcullis.middleware());
  if (opts.bodyParser !== 'before') app.use(bodyParser());
  app.use(router.routes());
  app.use(router.allowedMethods());
  return { app, portcullis, close: () => portcullis.close() };
}

import Koa, { type Context, type Middleware, type Next } from 'koa';
import { providerPreMiddleware, routeTable, type ProviderPreMiddleware, type RouteParts } from '../../lib/http/routes.js';
import { rawRequest } from '../helpers/raw-http.js';
import { freePort, startServer } from '../helpers/server.js';

/** The route table: one lookup, and only the middleware of the request's route runs, in the documented order. */

function recorder() {
  const seen: string[] = [];
  const step = (name: string, end = false): Middleware => async (ctx: Context, next: Next) => {
    seen.push(name);
    if (end) { ctx.body = name; return; }
    await next();
  };
  return { seen, step };
}

async function serve(mw: Middleware) {
  const app = new Koa();
  app.use(mw);
  app.use((ctx) => { ctx.status = 404; ctx.body = 'host app'; });
  const port = await freePort();
  const server = app.listen(port, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return { base: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) };
}

describe('routeTable', () => {
  const { seen, step } = recorder();
  const parts: RouteParts = {
    requestLog: step('requestLog'), handleErrors: step('handleErrors'), requireIssuerHost: step('requireIssuerHost'),
    health: step('health', true), oidcProvider: step('oidcProvider', true), interactionPages: step('interactionPages', true),
    accountPages: step('accountPages', true), uiContext: step('uiContext'), logo: step('logo', true), graphql: { paths: ['/api/graphql', '/api/graphql/csrf-token'], chain: [step('transport'), step('apollo', true)] },
  };
  let srv: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => { srv = await serve(routeTable(parts)); });
  afterAll(() => srv.close());

  const guarded = ['requestLog', 'uiContext', 'handleErrors', 'requireIssuerHost'];
  test.each([
    ['/healthz', ['requestLog', 'health']],
    ['/readyz', ['requestLog', 'health']],
    ['/userinfo', [...guarded, 'oidcProvider']],
    ['/token', [...guarded, 'oidcProvider']],
    ['/token/introspection', [...guarded, 'oidcProvider']],
    ['/registration/some-client', [...guarded, 'oidcProvider']],
    ['/authorization/some-uid', [...guarded, 'oidcProvider']],
    ['/session/end/confirm', [...guarded, 'oidcProvider']],
    ['/.well-known/openid-configuration', [...guarded, 'oidcProvider']],
    ['/.well-known/anything-else', [...guarded, 'oidcProvider']],
    ['/interaction/abc/login', [...guarded, 'interactionPages']],
    ['/account/signup', [...guarded, 'accountPages']],
    ['/ui/logo', [...guarded, 'logo']],
    ['/api/graphql', [...guarded, 'transport', 'apollo']],
    ['/api/graphql/csrf-token', [...guarded, 'transport', 'apollo']],
    ['/api', []],
    ['/somewhere/else', []],
    ['/', []],
  ])('%s runs %j', async (path, expected) => {
    seen.length = 0;
    const res = await rawRequest(srv.base, path);
    expect(seen).toEqual(expected);
    if (expected.length === 0) expect(res.text).toBe('host app');
  });
});

describe('providerPreMiddleware', () => {
  const { seen, step } = recorder();
  const mw: ProviderPreMiddleware = {
    answerStorageOutages: step('answerStorageOutages'), endpointRateLimits: step('endpointRateLimits'),
    settleInitialAccessToken: step('settleInitialAccessToken'), offlineAccessPrompt: step('offlineAccessPrompt'),
    explainPlainTokenResponseType: step('explainPlainTokenResponseType'), refuseScopeBeyondApproval: step('refuseScopeBeyondApproval'),
    revokeOnCodeReplay: step('revokeOnCodeReplay'),
  };
  let srv: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => { srv = await serve(providerPreMiddleware(mw)); });
  afterAll(() => srv.close());

  test.each([
    ['/token', ['answerStorageOutages', 'endpointRateLimits', 'refuseScopeBeyondApproval', 'revokeOnCodeReplay']],
    ['/token/introspection', ['answerStorageOutages', 'endpointRateLimits']],
    ['/token/revocation', ['answerStorageOutages', 'endpointRateLimits']],
    ['/registration', ['answerStorageOutages', 'endpointRateLimits', 'settleInitialAccessToken']],
    ['/authorization', ['offlineAccessPrompt', 'explainPlainTokenResponseType']],
    ['/userinfo', []],
    ['/.well-known/jwks.json', []],
    ['/.well-known/openid-configuration', []],
  ])('%s runs %j', async (path, expected) => {
    seen.length = 0;
    await rawRequest(srv.base, path);
    expect(seen).toEqual(expected);
  });
});

describe('the real server', () => {
  test('paths that are not Portcullis\' run none of its middleware (no request id, no log line)', async () => {
    const srv = await startServer();
    try {
      const ours = await rawRequest(srv.issuer, '/.well-known/jwks.json');
      expect(ours.headers['x-request-id']).toEqual(expect.any(String));
      const other = await rawRequest(srv.issuer, '/not-ours');
      expect(other.status).toBe(404);
      expect(other.headers['x-request-id']).toBeUndefined();
    } finally {
      await srv.close();
    }
  });
});

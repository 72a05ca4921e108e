import { createServer as createHttpServer, type Server } from 'node:http';
import { Writable } from 'node:stream';
import Koa, { type Context, type Middleware, type Next } from 'koa';
import { pino } from 'pino';
import {
  providerPreMiddleware,
  routeTable,
  type ProviderPreMiddleware,
  type RouteParts,
} from '../../lib/http/routes.js';
import { ENDPOINT_METHODS } from '../../lib/http/paths.js';
import { rawRequest } from '../helpers/raw-http.js';
import { freePort, startServer, type RunningServer } from '../helpers/server.js';

/** The route table: one lookup, and only the middleware of the request's route runs, in the documented order. */

function recorder() {
  const seen: string[] = [];
  const step =
    (name: string, end = false): Middleware =>
    async (ctx: Context, next: Next) => {
      seen.push(name);
      if (end) {
        ctx.body = name;
        return;
      }
      await next();
    };
  return { seen, step };
}

/** `mw` in a Koa app, followed by a host app's own 404 unless `hostApp` is false (the standalone app). */
async function serve(mw: Middleware, hostApp = true) {
  const app = new Koa();
  app.use(mw);
  if (hostApp)
    app.use((ctx) => {
      ctx.status = 404;
      ctx.body = 'host app';
    });
  const port = await freePort();
  const server = app.listen(port, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return { base: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) };
}

describe('routeTable', () => {
  const { seen, step } = recorder();
  const parts: RouteParts = {
    requestLog: step('requestLog'),
    handleErrors: step('handleErrors'),
    requireIssuerHost: step('requireIssuerHost'),
    oidcProvider: step('oidcProvider', true),
    uiContext: step('uiContext'),
    routes: [
      {
        name: 'health',
        where: { paths: ['/healthz', '/readyz'] },
        bodyLimit: 0,
        guarded: false,
        chain: [step('health', true)],
      },
      {
        name: 'interactionPages',
        where: { segment: '/interaction' },
        bodyLimit: 1024,
        chain: [step('interactionPages', true)],
      },
      { name: 'accountPages', where: { segment: '/account' }, bodyLimit: 1024, chain: [step('accountPages', true)] },
      { name: 'logo', where: { segment: '/ui' }, bodyLimit: 1024, chain: [step('logo', true)] },
      {
        name: 'graphql',
        where: { absolute: ['/api/graphql', '/api/graphql/csrf-token'] },
        bodyLimit: 1024,
        chain: [step('transport'), step('apollo', true)],
      },
    ],
  };
  let srv: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    srv = await serve(routeTable(parts));
  });
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

  describe('with an `unmatched` route (the standalone app)', () => {
    let standalone: Awaited<ReturnType<typeof serve>>;
    // Apollo's Koa middleware calls next() after answering: `unmatched` must not run after a route of ours.
    const callsNext: Middleware = async (ctx, next) => {
      seen.push('apollo');
      ctx.body = 'apollo';
      await next();
    };
    beforeAll(async () => {
      const routes = [
        ...parts.routes.filter((r) => r.name !== 'graphql'),
        {
          name: 'graphql',
          where: { absolute: ['/api/graphql'] },
          bodyLimit: 1024,
          chain: [step('transport'), callsNext],
        },
      ];
      standalone = await serve(routeTable({ ...parts, routes, unmatched: step('unmatched', true) }), false);
    });
    afterAll(() => standalone.close());
    test.each([
      ['/somewhere/else', ['unmatched'], 'unmatched'],
      ['/', ['unmatched'], 'unmatched'],
      ['/api', ['unmatched'], 'unmatched'],
      ['/api/graphql', [...guarded, 'transport', 'apollo'], 'apollo'],
      ['/userinfo', [...guarded, 'oidcProvider'], 'oidcProvider'],
    ])('%s runs %j', async (path, expected, body) => {
      seen.length = 0;
      const res = await rawRequest(standalone.base, path);
      expect([seen, res.text]).toEqual([expected, body]);
    });
  });
});

describe('providerPreMiddleware', () => {
  const { seen, step } = recorder();
  const mw: ProviderPreMiddleware = {
    answerStorageOutages: step('answerStorageOutages'),
    endpointRateLimits: step('endpointRateLimits'),
    offlineAccessPrompt: step('offlineAccessPrompt'),
    explainPlainTokenResponseType: step('explainPlainTokenResponseType'),
    revokeOnCodeReplay: step('revokeOnCodeReplay'),
    answerUnservedEndpoint: step('answerUnservedEndpoint'),
  };
  let srv: Awaited<ReturnType<typeof serve>>;
  // A feature's pre-middleware (the registration feature's) runs after ours, before the unserved-endpoint answer.
  const features = [{ endpoints: ['registration' as const], middleware: step('settleInitialAccessToken') }];
  beforeAll(async () => {
    srv = await serve(providerPreMiddleware(mw, features));
  });
  afterAll(() => srv.close());

  test.each([
    ['/token', ['answerStorageOutages', 'endpointRateLimits', 'revokeOnCodeReplay']],
    ['/token/introspection', ['answerStorageOutages', 'endpointRateLimits']],
    ['/token/revocation', ['answerStorageOutages', 'endpointRateLimits']],
    [
      '/registration',
      ['answerStorageOutages', 'endpointRateLimits', 'settleInitialAccessToken', 'answerUnservedEndpoint'],
    ],
    ['/authorization', ['offlineAccessPrompt', 'explainPlainTokenResponseType']],
    ['/userinfo', []],
    ['/device/auth', ['answerUnservedEndpoint']],
    ['/device', ['answerUnservedEndpoint']],
    ['/backchannel', ['answerUnservedEndpoint']],
    ['/challenge', ['answerUnservedEndpoint']],
    ['/credential', ['answerUnservedEndpoint']],
    ['/.well-known/jwks.json', []],
    ['/.well-known/openid-configuration', []],
    ['/token/something', ['answerUnservedEndpoint']],
    ['/registration/some-client', ['answerUnservedEndpoint']],
    ['/.well-known/something', ['answerUnservedEndpoint']],
  ])('%s runs %j', async (path, expected) => {
    seen.length = 0;
    // Each endpoint by a method it answers (ENDPOINT_METHODS): POST where it takes no GET.
    const method = ENDPOINT_METHODS.get(path)?.has('GET') === false ? 'POST' : 'GET';
    const form = { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=b' };
    await rawRequest(srv.base, path, { method, ...(method === 'POST' ? form : {}) });
    expect(seen).toEqual(expected);
  });

  // A method the endpoint does not answer: 405 with Allow before any of the endpoint's steps (RFC 9110 §15.5.6).
  test.each([
    ['GET', '/token', 'POST, OPTIONS'],
    ['GET', '/token/introspection', 'POST, OPTIONS'],
    ['GET', '/token/revocation', 'POST, OPTIONS'],
    ['PUT', '/registration', 'POST'],
    ['GET', '/request', 'POST, OPTIONS'],
    ['PUT', '/authorization', 'GET, HEAD, POST'],
    ['POST', '/session/end', 'GET, HEAD'],
    ['DELETE', '/userinfo', 'GET, HEAD, POST, OPTIONS'],
    ['POST', '/.well-known/jwks.json', 'GET, HEAD, OPTIONS'],
    ['PUT', '/.well-known/openid-configuration', 'GET, HEAD, OPTIONS'],
  ])('%s %s: 405 invalid_request, Allow: %s, no step run', async (method, path, allow) => {
    seen.length = 0;
    const res = await rawRequest(srv.base, path, { method });
    expect([res.status, res.headers.allow, res.json(), seen]).toEqual([
      405,
      allow,
      { error: 'invalid_request', error_description: `${method} is not allowed at this endpoint: use ${allow}.` },
      [],
    ]);
  });
});

describe('the real server', () => {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
      cb();
    },
  });

  test("standalone: a path that is not Portcullis' is logged, carries a request id, and gets a 404 invalid_request", async () => {
    const srv = await startServer({ logger: pino({ level: 'info' }, sink) });
    try {
      for (const [method, path] of [
        ['GET', '/not-ours'],
        ['POST', '/wp-login.php'],
        ['DELETE', '/.env'],
      ] as const) {
        lines.length = 0;
        const res = await rawRequest(srv.issuer, `${path}?code=secret-value`, {
          method,
          headers: { 'x-request-id': 'unmatched-1' },
        });
        expect([res.status, res.headers['x-request-id'], res.json()]).toEqual([
          404,
          'unmatched-1',
          { error: 'invalid_request', error_description: 'Not found: this server has no endpoint at this path.' },
        ]);
        expect(res.headers['cache-control']).toBe('no-store');
        await new Promise((r) => setTimeout(r, 20));
        // The path without its query (it may carry codes and tokens), like every request line.
        expect(lines.filter((l) => l.msg === 'request').map((l) => [l.reqId, l.method, l.path, l.status])).toEqual([
          ['unmatched-1', method, path, 404],
        ]);
        expect(JSON.stringify(lines)).not.toContain('secret-value');
      }
      // A browser gets the error page, with the pages' security headers.
      const page = await rawRequest(srv.issuer, '/not-ours', { headers: { accept: 'text/html' } });
      expect([page.status, page.headers['content-type'], page.headers['x-content-type-options']]).toEqual([
        404,
        'text/html; charset=utf-8',
        'nosniff',
      ]);
      expect(page.text).toContain('invalid_request');
      // Not the issuer's path, so no Host check: 404 under any Host.
      expect((await rawRequest(srv.issuer, '/not-ours', { headers: { host: 'evil.example' } })).status).toBe(404);
    } finally {
      await srv.close();
    }
  });

  // A feature that is off or a sub-path no endpoint has: oidc-provider has no route, Koa's plain text came before.
  // An endpoint in another case or with a trailing slash: oidc-provider's router would match it, past our
  // pre-middleware keyed on the exact path (client-authentication limits, initial access tokens, OAuth-only discovery).
  test.each([
    ['POST', '/device/auth', 'off'],
    ['GET', '/device', 'off'],
    ['POST', '/device', 'off'],
    ['POST', '/backchannel', 'off'],
    ['POST', '/challenge', 'off'],
    ['POST', '/credential', 'off'],
    ['GET', '/token/something', 'no such sub-path'],
    ['GET', '/.well-known/something', 'no such sub-path'],
    ['GET', '/session/end/nothing', 'no such sub-path'],
    ['POST', '/token/', 'variant'],
    ['POST', '/Token', 'variant'],
    ['POST', '/token/Introspection', 'variant'],
    ['POST', '/token/revocation/', 'variant'],
    ['POST', '/TOKEN/REVOCATION', 'variant'],
    ['POST', '/registration/', 'variant'],
    ['GET', '/authorization/', 'variant'],
    ['GET', '/.well-known/OPENID-configuration', 'variant'],
    ['GET', '/.well-known/openid-configuration/', 'variant'],
    ['GET', '/.well-known/jwks.json/', 'variant'],
    ['GET', '/userinfo/', 'variant'],
    ['POST', '/request/', 'variant'],
  ])(
    "%s %s (%s): 404 invalid_request in JSON or our page, logged, never oidc-provider's answer",
    async (method, path) => {
      const srv = await startServer({ logger: pino({ level: 'info' }, sink) });
      try {
        lines.length = 0;
        const form = { 'content-type': 'application/x-www-form-urlencoded' };
        const body =
          method === 'POST' ? 'grant_type=client_credentials&client_id=demo-web&client_secret=wrong' : undefined;
        const res = await rawRequest(srv.issuer, path, {
          method,
          headers: { ...form, 'x-request-id': 'unserved-1' },
          body,
        });
        expect([res.status, res.headers['content-type'], res.json()]).toEqual([
          404,
          'application/json; charset=utf-8',
          { error: 'invalid_request', error_description: 'Not found: this server has no endpoint at this path.' },
        ]);
        await new Promise((r) => setTimeout(r, 20));
        expect(lines.filter((l) => l.msg === 'request').map((l) => [l.reqId, l.path, l.status])).toEqual([
          ['unserved-1', path, 404],
        ]);
        const page = await rawRequest(srv.issuer, path, { method, headers: { ...form, accept: 'text/html' }, body });
        expect([page.status, page.headers['content-type']]).toEqual([404, 'text/html; charset=utf-8']);
      } finally {
        await srv.close();
      }
    },
  );

  test('the client-authentication limit cannot be dodged with a trailing slash: /token/ never authenticates a client', async () => {
    const srv = await startServer({ rateLimits: { clientAuthFailures: { points: 3, durationSeconds: 60 } } });
    try {
      const attempt = async (path: string) =>
        (
          await rawRequest(srv.issuer, path, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: 'grant_type=client_credentials&client_id=demo-web&client_secret=wrong',
          })
        ).status;
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push(await attempt('/token/'));
      for (let i = 0; i < 5; i++) statuses.push(await attempt('/token'));
      expect(statuses).toEqual([404, 404, 404, 404, 404, 401, 401, 401, 429, 429]);
    } finally {
      await srv.close();
    }
  });

  test("in a host app, a path that is not Portcullis' runs none of its middleware (no request id, no log line)", async () => {
    const srv = await startServer({ logger: pino({ level: 'info' }, sink) });
    const app = new Koa();
    app.use(srv.server.middleware());
    app.use((ctx) => {
      ctx.body = 'host app';
    });
    const port = await freePort();
    const host = createHttpServer(app.callback()).listen(port, '127.0.0.1');
    await new Promise((r) => host.once('listening', r));
    try {
      lines.length = 0;
      const ours = await rawRequest(`http://127.0.0.1:${port}`, '/.well-known/jwks.json', {
        headers: { host: new URL(srv.issuer).host },
      });
      expect([ours.status, ours.headers['x-request-id']]).toEqual([200, expect.any(String)]);
      const other = await rawRequest(`http://127.0.0.1:${port}`, '/not-ours');
      expect([other.status, other.text, other.headers['x-request-id']]).toEqual([200, 'host app', undefined]);
      await new Promise((r) => setTimeout(r, 20));
      expect(lines.filter((l) => l.msg === 'request').map((l) => l.path)).toEqual(['/.well-known/jwks.json']);
    } finally {
      host.close();
      await srv.close();
    }
  });
});

/**
 * `server.listen` hands provider endpoints requested by their exact path straight to oidc-provider's app
 * (lib/http/provider-lane.ts); `server.app.callback()` takes them through the route table. Both lanes must answer
 * the same: same status, request id, log line, and the issuer Host check (421) and absolute-form check first.
 */
describe('the standalone provider lane answers as the route table does', () => {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
      cb();
    },
  });
  let srv: RunningServer;
  let viaTable: string;
  let table: Server;
  beforeAll(async () => {
    srv = await startServer({ logger: pino({ level: 'info' }, sink) });
    const port = await freePort();
    table = createHttpServer(srv.server.app.callback()).listen(port, '127.0.0.1');
    await new Promise((r) => table.once('listening', r));
    viaTable = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    table.close();
    await srv.close();
  });

  const host = () => new URL(srv.issuer).host;
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  test.each([
    ['GET /userinfo without a token', 'GET', '/userinfo', {}, undefined, 401],
    [
      'POST /token without a grant',
      'POST',
      '/token',
      form,
      'grant_type=authorization_code&client_id=demo-web&client_secret=demo-web-secret&code=nope&code_verifier=x',
      400,
    ],
    ['GET /.well-known/jwks.json', 'GET', '/.well-known/jwks.json', {}, undefined, 200],
    ['GET /.well-known/openid-configuration', 'GET', '/.well-known/openid-configuration', {}, undefined, 200],
    ['GET /.well-known/openid-configuration?x=1', 'GET', '/.well-known/openid-configuration?x=1', {}, undefined, 200],
    ['POST /token/introspection without a client', 'POST', '/token/introspection', form, 'token=x', 400],
    ['POST /registration without a token', 'POST', '/registration', { 'content-type': 'application/json' }, '{}', 401],
    ['GET /session/end', 'GET', '/session/end', {}, undefined, 200],
  ] as const)('%s', async (_name, method, path, headers, body, status) => {
    for (const base of [srv.issuer, viaTable]) {
      lines.length = 0;
      const res = await rawRequest(base, path, {
        method,
        headers: { host: host(), 'x-request-id': 'lane-test-1', ...headers },
        body,
      });
      expect([base === srv.issuer ? 'listen' : 'table', res.status, res.headers['x-request-id']]).toEqual([
        base === srv.issuer ? 'listen' : 'table',
        status,
        'lane-test-1',
      ]);
      await new Promise((r) => setTimeout(r, 20));
      expect(lines.filter((l) => l.msg === 'request').map((l) => [l.reqId, l.path, l.status])).toEqual([
        ['lane-test-1', path.split('?')[0], status],
      ]);
      const wrongHost = await rawRequest(base, path, { method, headers: { host: 'evil.example', ...headers }, body });
      expect([wrongHost.status, wrongHost.json()]).toEqual([
        421,
        {
          error: 'invalid_request',
          error_description: `This server only answers for ${host()}; the request named another host. Operators: add the name to \`allowedHosts\` if it is yours.`,
        },
      ]);
    }
  });

  test('an absolute-form request-target naming another origin is refused on both lanes', async () => {
    for (const base of [srv.issuer, viaTable]) {
      const res = await rawRequest(base, 'http://evil.example/token', { method: 'GET', headers: { host: host() } });
      expect(res.status).toBe(421);
    }
  });
});

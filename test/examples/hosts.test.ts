import { readFileSync } from 'node:fs';
import { decodeJwt } from 'jose';
import express from 'express';
import { buildExpressHost, withListener, type ExampleHost } from '../../examples/hosts/express.js';
import { buildFastifyHost } from '../../examples/hosts/fastify.js';
import { buildNodeHttpHost } from '../../examples/hosts/node-http.js';
import { catalogResolvers, typeDefs } from '../../examples/catalog/schema.js';
import { DEMO, demoFixtures } from '../../examples/demo-fixtures.js';
import { createServer, type PortcullisConfig, type PortcullisServer } from '../../lib/index.js';
import { query } from '../helpers/authorization.js';
import { oidc, relyingParty, signIn } from '../helpers/flow.js';
import { rawRequest } from '../helpers/raw-http.js';
import { freePort, graphql } from '../helpers/server.js';

/** The demo configuration with the issuer under `/auth` and GraphQL at `/api/graphql` (outside the issuer's path). */
function configFor(origin: string): PortcullisConfig {
  const graphql = { path: '/api/graphql', typeDefs, resolvers: catalogResolvers() };
  return { issuer: `${origin}/auth`, graphql, ...demoFixtures() };
}

interface Running {
  origin: string;
  issuer: string;
  host: ExampleHost<unknown>;
}

async function run(build: Build): Promise<Running> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const host = await build(configFor(origin));
  await host.listen(port, '127.0.0.1');
  return { origin, issuer: `${origin}/auth`, host };
}

/** Each host with its own answer to a path that is neither Portcullis' nor one of its routes. */
type Build = (config: PortcullisConfig) => Promise<ExampleHost<unknown>>;
const HOSTS: Array<{ name: string; build: Build; notFound: [number, string] }> = [
  { name: 'Express 5', build: (c) => buildExpressHost(c), notFound: [404, 'text/html'] },
  {
    name: 'Express 5, express.json() and express.urlencoded() in front',
    build: (c) => buildExpressHost(c, { bodyParsers: 'before' }),
    notFound: [404, 'text/html'],
  },
  {
    name: 'Express 5, parsers in front keeping req.rawBody',
    build: (c) => buildExpressHost(c, { bodyParsers: 'before', keepRawBody: true }),
    notFound: [404, 'text/html'],
  },
  { name: 'Fastify 5', build: (c) => buildFastifyHost(c), notFound: [404, 'application/json'] },
  { name: 'node:http', build: (c) => buildNodeHttpHost(c), notFound: [404, 'application/json'] },
];

describe.each(HOSTS)('server.handler() in $name, issuer under /auth', ({ build, notFound }) => {
  let d: Running;
  beforeAll(async () => {
    d = await run(build);
  });
  afterAll(() => d.host.close());

  test('discovery under the issuer, RFC 8414 §3.1 path-inserted at the root; other paths to the host', async () => {
    const discovery = await fetch(`${d.issuer}/.well-known/openid-configuration`);
    const inserted = await fetch(`${d.origin}/.well-known/oauth-authorization-server/auth`);
    expect([discovery.status, inserted.status]).toEqual([200, 200]);
    for (const doc of [await discovery.json(), await inserted.json()] as Array<Record<string, unknown>>) {
      expect([doc.issuer, doc.token_endpoint]).toEqual([d.issuer, `${d.issuer}/token`]);
    }
    for (const path of ['/.well-known/openid-configuration', '/auth/account/nothing-here', '/auth/ui/other']) {
      const other = await fetch(`${d.origin}${path}`);
      expect([path, other.status, other.headers.get('content-type')!.split(';')[0]]).toEqual([path, ...notFound]);
    }
  });

  test('code + PKCE with openid-client through the real forms, userinfo, then GraphQL with the token', async () => {
    const rp = await relyingParty(d.issuer);
    const { tokens, seen } = await signIn(d.issuer, rp, {
      email: DEMO.admin.email,
      password: DEMO.admin.password,
      params: { scope: 'openid email catalog:admin' },
    });
    expect(decodeJwt(tokens.id_token!).iss).toBe(d.issuer);
    const action = seen.loginPage!.dom.querySelector('form')!.getAttribute('action');
    expect(action).toMatch(/^\/auth\/interaction\/[\w-]+\/login$/);
    const claims = await oidc.fetchUserInfo(rp.config, tokens.access_token, decodeJwt(tokens.id_token!).sub!);
    expect(claims.email).toBe(DEMO.admin.email);
    const res = await graphql(`${d.origin}/api/graphql`, '{ product(id: 3) { name } }', {
      token: tokens.access_token,
    });
    expect(res.body).toEqual({ data: { product: { name: 'Prototype Drone' } } });
  });

  test("the host's own routes still answer, its body parser included", async () => {
    expect(await (await fetch(`${d.origin}/`)).json()).toEqual({ hello: 'from the host app' });
    if (d.host.app !== undefined) {
      // node:http's example has no echo route
      const echo = await fetch(`${d.origin}/api/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"a":1}',
      });
      expect([echo.status, await echo.json()]).toEqual([200, { received: { a: 1 } }]);
    }
  });

  test('HEAD, the Host check, a protocol error, a body over the limit', async () => {
    const head = await rawRequest(d.origin, '/auth/.well-known/openid-configuration', { method: 'HEAD' });
    expect([head.status, head.text]).toEqual([200, '']);
    for (const path of ['/auth/.well-known/openid-configuration', '/.well-known/oauth-authorization-server/auth']) {
      const other = await rawRequest(d.origin, path, { headers: { host: 'evil.example' } });
      expect([path, other.status]).toEqual([path, 421]);
    }
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const token = await fetch(`${d.issuer}/token`, {
      method: 'POST',
      headers: form,
      body: query({
        grant_type: 'authorization_code',
        code: 'x',
        code_verifier: 'v'.repeat(43),
        redirect_uri: DEMO.client.redirectUri,
        client_id: DEMO.client.id,
        client_secret: DEMO.client.secret,
      }),
    });
    expect([token.status, ((await token.json()) as { error: string }).error]).toEqual([400, 'invalid_grant']);
    const pad = 'a'.repeat(60 * 1024);
    const big = await fetch(`${d.issuer}/token`, { method: 'POST', headers: form, body: `grant_type=x&pad=${pad}` });
    expect([big.status, ((await big.json()) as { error: string }).error]).toEqual([413, 'invalid_request']);
  });
});

describe('server.handler() mount points and body parsers', () => {
  let cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanup) await c();
    cleanup = [];
  });

  async function expressHost(arrange: (app: express.Express, p: PortcullisServer) => void): Promise<Running> {
    return run(async (config) => {
      const portcullis = await createServer(config);
      const app = express();
      arrange(app, portcullis);
      const host = withListener(app, portcullis, (port, h) => app.listen(port, h));
      cleanup.push(() => host.close());
      return host;
    });
  }

  test("without next (createServer(handler)): other paths get the standalone's 404; ours are served", async () => {
    const d = await run((c) => buildNodeHttpHost(c, { hostRoutes: false }));
    cleanup.push(() => d.host.close());
    const other = await fetch(`${d.origin}/elsewhere`);
    expect([other.status, await other.json()]).toEqual([
      404,
      {
        error: 'invalid_request',
        error_description: 'Not found: this server has no endpoint at this path.',
      },
    ]);
    expect((await fetch(`${d.issuer}/.well-known/openid-configuration`)).status).toBe(200);
  });

  test('Fastify: its onResponse hooks still run for the requests Portcullis answers', async () => {
    const seen: Array<[string, number]> = [];
    const d = await run(async (c) => {
      const host = await buildFastifyHost(c);
      host.app.addHook('onResponse', (request, reply, done) => {
        seen.push([request.url, reply.statusCode]);
        done();
      });
      return host;
    });
    cleanup.push(() => d.host.close());
    expect((await fetch(`${d.issuer}/.well-known/openid-configuration`)).status).toBe(200);
    expect((await fetch(`${d.origin}/`)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 50)); // onResponse runs after the client has the answer
    expect(seen).toEqual([
      ['/auth/.well-known/openid-configuration', 200],
      ['/', 200],
    ]);
  });

  test('express.json() in front answers a malformed body itself (its default 400 HTML page)', async () => {
    const d = await run((c) => buildExpressHost(c, { bodyParsers: 'before' }));
    cleanup.push(() => d.host.close());
    const res = await fetch(`${d.issuer}/registration`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${DEMO.initialAccessToken}` },
      body: '{"redirect_uris": [',
    });
    expect([res.status, res.headers.get('content-type')!.split(';')[0]]).toEqual([400, 'text/html']);
  });

  test('a host middleware draining the body, keeping nothing: 500 naming the mount order', async () => {
    const d = await expressHost((app, p) => {
      app.use(async (req, _res, next) => {
        for await (const _ of req) {
          /* drain, keep nothing */
        }
        next();
      });
      app.use(p.handler());
    });
    const res = await fetch(`${d.issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=authorization_code&code=x',
    });
    const body = (await res.json()) as { error: string; error_description: string };
    expect([res.status, body.error]).toEqual([500, 'server_error']);
    expect(body.error_description).toContain('server.handler() before it (Express, Fastify, node:http)');
  });

  test("Express mount at the issuer's path works (app.use('/auth', …)); elsewhere: 500 naming it", async () => {
    const right = await expressHost((app, p) => app.use('/auth', p.handler()));
    const discovery = await fetch(`${right.issuer}/.well-known/openid-configuration`);
    const doc = (await discovery.json()) as Record<string, string>;
    expect(doc.token_endpoint).toBe(`${right.issuer}/token`);
    const rp = await relyingParty(right.issuer);
    const { tokens } = await signIn(right.issuer, rp);
    expect(decodeJwt(tokens.id_token!).iss).toBe(right.issuer);

    const wrong = await expressHost((app, p) => app.use('/oidc', p.handler()));
    const res = await fetch(`${wrong.origin}/oidc/.well-known/openid-configuration`);
    expect(res.status).toBe(500);
    const { error_description: description } = (await res.json()) as { error_description: string };
    expect(description).toContain('mounted under a path its issuer');
  });
});

/** The guide's snippets are the examples' lines. */
describe('docs/guides/hosts.md', () => {
  const guide = readFileSync(new URL('../../docs/guides/hosts.md', import.meta.url), 'utf8');
  test.each([
    ['express', 'app.use(portcullis.handler());'],
    ['fastify', "app.addHook('onRequest', (request, reply, done) => handler(request.raw, reply.raw, done));"],
    ['node-http', 'createHttpServer((req, res) => handler(req, res, () => hostRoutes(req, res)))'],
  ])('examples/hosts/%s.ts and the guide share %s', (file, line) => {
    expect(readFileSync(new URL(`../../examples/hosts/${file}.ts`, import.meta.url), 'utf8')).toContain(line);
    expect(guide).toContain(line);
  });
});

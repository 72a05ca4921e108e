import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { decodeJwt } from 'jose';
import Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import { buildHostApp, type BodyParserPlacement } from '../../examples/mount-in-koa.js';
import { catalogResolvers, typeDefs } from '../../examples/catalog/schema.js';
import { DEMO, demoFixtures } from '../../examples/demo-fixtures.js';
import { createServer, type PortcullisConfig, type PortcullisServer } from '../../lib/index.js';
import { TestBrowser } from '../helpers/browser.js';
import { delivered, query } from '../helpers/authorization.js';
import { browse, oidc, relyingParty, signIn, startAuthorization } from '../helpers/flow.js';
import { rawRequest } from '../helpers/raw-http.js';
import { register, WEB_CLIENT } from '../helpers/registration.js';
import { freePort, graphql } from '../helpers/server.js';

const POST_LOGOUT = 'http://localhost:8080/signed-out';

/** The demo configuration with `post_logout_redirect_uris` for the logout flow. */
function configFor(issuer: string, graphqlPath: string): PortcullisConfig {
  const fixtures = demoFixtures();
  return {
    issuer,
    graphql: { path: graphqlPath, typeDefs, resolvers: catalogResolvers() },
    ...fixtures,
    clients: fixtures.clients!.map((c) =>
      c.client_id === DEMO.client.id ? { ...c, post_logout_redirect_uris: [POST_LOGOUT] } : c,
    ),
  };
}

interface Deployment {
  /** Issuer (`origin` + prefix). */
  issuer: string;
  origin: string;
  prefix: string;
  graphqlUrl: string;
  server: PortcullisServer;
  /** Whether a host app with its own routes serves beside Portcullis. */
  host: boolean;
  close(): Promise<void>;
}

type Kind = { name: string; prefix: string; graphqlPath: string; host?: BodyParserPlacement };

/** Standalone at the root (as `npm start`), standalone under a prefix (behind a path-forwarding proxy), and the example host app with its body parser before and after Portcullis. */
const KINDS: Kind[] = [
  { name: 'standalone at the root', prefix: '', graphqlPath: '/graphql' },
  { name: 'standalone under /auth', prefix: '/auth', graphqlPath: '/auth/graphql' },
  {
    name: 'mounted under /auth in a host app, host body parser before',
    prefix: '/auth',
    graphqlPath: '/api/graphql',
    host: 'before',
  },
  {
    name: 'mounted under /auth in a host app, host body parser after',
    prefix: '/auth',
    graphqlPath: '/api/graphql',
    host: 'after',
  },
];

async function deploy(kind: Kind): Promise<Deployment> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const issuer = origin + kind.prefix;
  const config = configFor(issuer, kind.graphqlPath);
  if (!kind.host) {
    const server = await createServer(config);
    await server.listen(port, '127.0.0.1');
    return {
      issuer,
      origin,
      prefix: kind.prefix,
      graphqlUrl: origin + kind.graphqlPath,
      server,
      host: false,
      close: () => server.close(),
    };
  }
  const built = await buildHostApp(config, { bodyParser: kind.host });
  const http: Server = built.app.listen(port, '127.0.0.1');
  await new Promise((resolve) => http.once('listening', resolve));
  return {
    issuer,
    origin,
    prefix: kind.prefix,
    graphqlUrl: origin + kind.graphqlPath,
    server: built.portcullis,
    host: true,
    async close() {
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
      await built.close();
    },
  };
}

// oidc-provider prints its "already parsed request body" warning once per process: this block must stay the first
// of the file to send a body through a host parser, so that a missing replay shows here.
describe('a host body parser in front of oidc-provider', () => {
  test('its raw body is replayed to oidc-provider as the request stream: no "upstream middleware parser" warning', async () => {
    const d = await deploy(KINDS.find((k) => k.host === 'before')!);
    const warned: string[] = [];
    const { warn } = console;
    console.warn = (...args: unknown[]) => {
      warned.push(args.map(String).join(' '));
    };
    try {
      const res = await fetch(`${d.issuer}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: query({
          grant_type: 'authorization_code',
          code: 'x',
          code_verifier: 'v'.repeat(43),
          redirect_uri: DEMO.client.redirectUri,
          client_id: DEMO.client.id,
          client_secret: DEMO.client.secret,
        }),
      });
      expect({ status: res.status, error: ((await res.json()) as { error: string }).error }).toEqual({
        status: 400,
        error: 'invalid_grant',
      });
      expect(warned.filter((line) => line.includes('already parsed request body'))).toEqual([]);
    } finally {
      console.warn = warn;
      await d.close();
    }
  });
});

describe.each(KINDS)('OpenID flows, $name', (kind) => {
  let d: Deployment;
  beforeAll(async () => {
    d = await deploy(kind);
  });
  afterAll(() => d.close());

  test('discovery: OIDC Discovery §4 at issuer + /.well-known/openid-configuration, RFC 8414 §3.1 path-inserted; every endpoint under the issuer', async () => {
    const oidcDoc = (await (await fetch(`${d.issuer}/.well-known/openid-configuration`)).json()) as Record<
      string,
      unknown
    >;
    const inserted = await fetch(`${d.origin}/.well-known/oauth-authorization-server${d.prefix}`);
    expect(inserted.status).toBe(200);
    const rfc8414 = (await inserted.json()) as Record<string, unknown>;
    for (const doc of [oidcDoc, rfc8414]) {
      expect(doc.issuer).toBe(d.issuer);
      for (const member of [
        'authorization_endpoint',
        'token_endpoint',
        'userinfo_endpoint',
        'registration_endpoint',
        'jwks_uri',
        'end_session_endpoint',
        'revocation_endpoint',
        'introspection_endpoint',
        'pushed_authorization_request_endpoint',
      ]) {
        expect(String(doc[member])).toMatch(new RegExp(`^${d.issuer.replace(/[./]/g, '\\$&')}/`));
      }
    }
    expect(rfc8414.token_endpoint).toBe(`${d.issuer}/token`);
    expect((await fetch(String(oidcDoc.jwks_uri))).status).toBe(200);
    if (d.prefix) {
      // Nothing of the authorization server at the host root.
      expect((await fetch(`${d.origin}/.well-known/openid-configuration`)).status).toBe(404);
      expect((await fetch(`${d.origin}/token`, { method: 'POST' })).status).toBe(404);
      expect((await fetch(`${d.issuer}/healthz`)).status).toBe(200);
    }
  });

  test('code flow with openid-client through the real forms; cookies scoped to the issuer path; userinfo; GraphQL with the token', async () => {
    const rp = await relyingParty(d.issuer);
    const browser = new TestBrowser(d.issuer);
    const { tokens, seen } = await signIn(d.issuer, rp, {
      browser,
      email: DEMO.admin.email,
      password: DEMO.admin.password,
      params: { scope: 'openid email catalog:admin' },
    });
    expect(decodeJwt(tokens.id_token!).iss).toBe(d.issuer);
    expect(seen.loginPage!.url.startsWith(`${d.issuer}/interaction/`)).toBe(true);
    const action = seen.loginPage!.dom.querySelector('form')!.getAttribute('action')!;
    expect(action).toMatch(new RegExp(`^${d.prefix}/interaction/[\\w-]+/login$`));
    // Every cookie the browser holds for the server is scoped under the issuer's path (on this plain-http issuer the
    // forms' CSRF nonce too; only its https name `__Host-portcullis.csrf` must be Path=/, test/http/csrf.test.ts).
    const cookies = await browser.jar.getCookies(`${d.issuer}/interaction/x`);
    expect(cookies.length).toBeGreaterThan(0);
    for (const cookie of (await browser.jar.serialize()).cookies) {
      if (cookie.key !== 'host.sid') expect(String(cookie.path)).toMatch(new RegExp(`^${d.prefix}(/|$)`));
    }
    expect(cookies.some((c) => c.key === 'portcullis.csrf')).toBe(true);
    const session = browser.jar.getCookiesSync(`${d.issuer}/`).find((c) => c.key === '_session');
    expect(session?.path).toBe(d.prefix || '/');

    const claims = await oidc.fetchUserInfo(rp.config, tokens.access_token, decodeJwt(tokens.id_token!).sub!);
    expect(claims.email).toBe(DEMO.admin.email);

    const res = await graphql(d.graphqlUrl, '{ product(id: 3) { name } }', { token: tokens.access_token });
    expect(res.body).toEqual({ data: { product: { name: 'Prototype Drone' } } });
  });

  test('code exchange with a scope beyond the approval: invalid_scope, the code unspent (oidc-provider parsed the body, whoever read it first)', async () => {
    const rp = await relyingParty(d.issuer);
    const start = await startAuthorization(rp, { scope: 'openid email' });
    const seen = await browse(new TestBrowser(d.issuer), start.url);
    const exchange = (scope?: string) =>
      fetch(`${d.issuer}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: query({
          grant_type: 'authorization_code',
          code: seen.callback.searchParams.get('code')!,
          code_verifier: start.codeVerifier,
          redirect_uri: rp.redirectUri,
          client_id: DEMO.client.id,
          client_secret: DEMO.client.secret,
          ...(scope ? { scope } : {}),
        }),
      });
    const beyond = await exchange('openid email phone');
    expect({ status: beyond.status, body: await beyond.json() }).toEqual({
      status: 400,
      body: {
        error: 'invalid_scope',
        error_description: 'requested scope goes beyond the scope approved for this authorization code: phone',
      },
    });
    const redeemed = await exchange();
    expect(redeemed.status).toBe(200);
    expect(((await redeemed.json()) as { scope: string }).scope.split(' ').sort()).toEqual(['email', 'openid']);
  });

  test('the account page under the issuer: signs in through the first-party client, then its links and forms stay under the prefix', async () => {
    const browser = new TestBrowser(d.issuer);
    let page = await browser.go(`${d.issuer}/account`);
    for (let step = 0; step < 3 && page.dom.querySelector('input[name=password]'); step++) {
      page = await browser.submit(page, { email: DEMO.alice.email, password: DEMO.alice.password });
    }
    expect(page.status).toBe(200);
    expect(page.url).toBe(`${d.issuer}/account`);
    expect(page.dom.querySelector('#email')?.text).toBe(DEMO.alice.email);
    for (const form of page.dom.querySelectorAll('form'))
      expect(form.getAttribute('action')).toMatch(new RegExp(`^${d.prefix}/account/`));
    expect(page.dom.querySelector('#sign-out')?.getAttribute('href')).toBe(`${d.prefix}/session/end`);
  });

  test('consent: "Switch account" links under the issuer; following it signs in another account and the client gets its code with the same state', async () => {
    const rp = await relyingParty(d.issuer);
    const browser = new TestBrowser(d.issuer);
    // A scope no other test of this block asked alice for: consent is remembered per account.
    const start = await startAuthorization(rp, { scope: 'openid profile' });
    const consent = await browser.submit(await browser.go(start.url.href), {
      email: DEMO.alice.email,
      password: DEMO.alice.password,
    });
    const href = consent.dom.querySelector('a#switch-account')?.getAttribute('href');
    expect(href).toMatch(new RegExp(`^${d.prefix}/authorization\\?`));
    const login = await browser.go(new URL(href!, d.origin).href);
    expect([
      login.status,
      login.url.startsWith(`${d.issuer}/interaction/`),
      login.dom.querySelector('input[name=password]') !== null,
    ]).toEqual([200, true, true]);
    // oidc-provider ends alice's session with its logout form (submitted by script in a browser), then asks admin's consent.
    const logout = await browser.submit(login, { email: DEMO.admin.email, password: DEMO.admin.password });
    expect(logout.dom.querySelector('form')?.getAttribute('action')).toBe(`${d.issuer}/session/end/confirm`);
    const again = await browser.submit(logout, {});
    const done = await browser.submit(again, {}, { name: 'decision', value: 'allow' });
    const tokens = await oidc.authorizationCodeGrant(rp.config, new URL(done.redirectedTo!), {
      pkceCodeVerifier: start.codeVerifier,
      expectedState: start.state,
      expectedNonce: start.nonce,
    });
    expect(tokens.claims()!.sub).toBe('admin');
  });

  test('implicit flow (id_token token): tokens in the fragment, iss is the issuer with its path', async () => {
    const seen = await browse(
      new TestBrowser(d.issuer),
      `${d.issuer}/authorization?${query({
        client_id: DEMO.spa.id,
        response_type: 'id_token token',
        redirect_uri: DEMO.spa.redirectUri,
        scope: 'openid email',
        state: 's1',
        nonce: 'n1',
      })}`,
    );
    const hash = new URLSearchParams(seen.callback.hash.slice(1));
    expect(hash.get('state')).toBe('s1');
    expect(hash.get('iss')).toBe(d.issuer);
    expect(decodeJwt(hash.get('id_token')!)).toMatchObject({ iss: d.issuer, nonce: 'n1' });
    const userinfo = await fetch(`${d.issuer}/userinfo`, {
      headers: { authorization: `Bearer ${hash.get('access_token')}` },
    });
    expect(((await userinfo.json()) as { email: string }).email).toBe(DEMO.alice.email);
  });

  test('dynamic registration: 201 with registration_client_uri under the issuer, which reads the client back', async () => {
    const created = await register(d.issuer, { ...WEB_CLIENT });
    expect(created.status).toBe(201);
    expect(String(created.body.registration_client_uri)).toBe(
      `${d.issuer}/registration/${String(created.body.client_id)}`,
    );
    const read = await fetch(String(created.body.registration_client_uri), {
      headers: { authorization: `Bearer ${String(created.body.registration_access_token)}` },
    });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { client_id: string }).client_id).toBe(created.body.client_id);
  });

  test('RP-initiated logout: confirmation form posts under the issuer, then the session ends', async () => {
    const rp = await relyingParty(d.issuer);
    const browser = new TestBrowser(d.issuer);
    const { tokens } = await signIn(d.issuer, rp, { browser });
    const page = await browser.go(
      oidc.buildEndSessionUrl(rp.config, {
        id_token_hint: tokens.id_token!,
        post_logout_redirect_uri: POST_LOGOUT,
        state: 'bye',
      }).href,
    );
    expect(page.status).toBe(200);
    expect(page.dom.querySelector('form#op\\.logoutForm')?.getAttribute('action')).toBe(
      `${d.issuer}/session/end/confirm`,
    );
    const done = await browser.submit(page, {}, { name: 'logout', value: 'yes' });
    expect(done.redirectedTo).toBe(`${POST_LOGOUT}?state=bye`);
    expect(browser.jar.getCookiesSync(`${d.issuer}/`).find((c) => c.key === '_session')).toBeUndefined();
  });

  test('Host and issuer checks under the prefix: another Host gets 421; an absolute-form target naming another origin too', async () => {
    const other = await rawRequest(d.origin, `${d.prefix}/.well-known/openid-configuration`, {
      headers: { host: 'evil.example' },
    });
    expect(other.status).toBe(421);
    const absolute = await rawRequest(d.origin, `http://evil.example${d.prefix}/.well-known/openid-configuration`);
    expect(absolute.status).toBe(421);
    const own = await rawRequest(d.origin, `${d.issuer}/.well-known/openid-configuration`);
    expect(own.status).toBe(200);
    expect(own.json().token_endpoint).toBe(`${d.issuer}/token`);
  });

  if (kind.host) {
    test('the host keeps its own routes, session and body parser beside Portcullis', async () => {
      expect(await (await fetch(`${d.origin}/`)).json()).toEqual({ hello: 'from the host app' });
      const echo = await fetch(`${d.origin}/api/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"a":1}',
      });
      expect(await echo.json()).toEqual({ received: { a: 1 } });
      const first = await fetch(`${d.origin}/api/visits`);
      const cookie = first.headers.getSetCookie()[0]!.split(';')[0]!;
      const second = await fetch(`${d.origin}/api/visits`, { headers: { cookie } });
      expect(await second.json()).toEqual({ visits: 2 });
    });
  }
});

describe('host body parsers and mount points', () => {
  let cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanup) await c();
    cleanup = [];
  });

  async function host(issuerPath: string, arrange: (app: Koa, portcullis: PortcullisServer) => void) {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const portcullis = await createServer(configFor(origin + issuerPath, '/api/graphql'));
    const app = new Koa();
    arrange(app, portcullis);
    const http = app.listen(port, '127.0.0.1');
    await new Promise((resolve) => http.once('listening', resolve));
    cleanup.push(async () => {
      await new Promise<void>((r) => {
        http.close(() => r());
        http.closeAllConnections();
      });
      await portcullis.close();
    });
    return { origin, issuer: origin + issuerPath };
  }

  test('a host parser that keeps no raw body and no parsed body: /token names the fix instead of "failed to parse the request body"', async () => {
    const { issuer } = await host('/auth', (app, p) => {
      app.use(async (ctx, next) => {
        for await (const _ of ctx.req) {
          /* drain, keep nothing */
        }
        await next();
      });
      app.use(p.middleware());
    });
    const res = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=authorization_code&code=x',
    });
    expect(res.status).toBe(500);
    const body = (await res.json()) as { error: string; error_description: string };
    expect(body.error).toBe('server_error');
    expect(body.error_description).toContain("Mount server.middleware() before the host's body parser");
  });

  test('a host parser (@koa/bodyparser) in front: the provider parses its raw body as its own; a larger body than its limit gets 413', async () => {
    const { issuer } = await host('/auth', (app, p) => {
      app.use(bodyParser({ formLimit: '1mb' }));
      app.use(p.middleware());
    });
    const bad = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=authorization_code&code=x&code_verifier=${'v'.repeat(43)}&redirect_uri=${encodeURIComponent(DEMO.client.redirectUri)}&client_id=${DEMO.client.id}&client_secret=${DEMO.client.secret}`,
    });
    // Every parameter was read (a body oidc-provider could not read would be `invalid_request`): the code is unknown.
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'invalid_grant' });
    const big = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=x&pad=${'a'.repeat(60 * 1024)}`,
    });
    expect(big.status).toBe(413);
  });

  test('koa-mount style mount at the issuer path works; a mount under another path answers 500 naming the fix', async () => {
    // What koa-mount does: strip the prefix from ctx.path and set ctx.mountPath.
    const mount =
      (prefix: string, mw: Koa.Middleware): Koa.Middleware =>
      async (ctx, next) => {
        if (ctx.path !== prefix && !ctx.path.startsWith(`${prefix}/`)) return next();
        const prev = ctx.path;
        ctx.path = ctx.path.slice(prefix.length) || '/';
        (ctx as { mountPath?: string }).mountPath = prefix;
        try {
          await mw(ctx, async () => {
            ctx.path = prev;
            await next();
          });
        } finally {
          ctx.path = prev;
        }
      };
    const right = await host('/auth', (app, p) => app.use(mount('/auth', p.middleware())));
    const doc = (await (await fetch(`${right.issuer}/.well-known/openid-configuration`)).json()) as {
      token_endpoint: string;
    };
    expect(doc.token_endpoint).toBe(`${right.issuer}/token`);
    const rp = await relyingParty(right.issuer);
    const { tokens } = await signIn(right.issuer, rp);
    expect(decodeJwt(tokens.id_token!).iss).toBe(right.issuer);
    // Links built from the host's ctx.mountPath: "Switch account" on the consent page stays under the mount.
    const browser = new TestBrowser(right.issuer);
    const consent = await browser.submit(
      await browser.go((await startAuthorization(rp, { scope: 'openid email' })).url.href),
      { email: DEMO.alice.email, password: DEMO.alice.password },
    );
    const href = consent.dom.querySelector('a#switch-account')!.getAttribute('href')!;
    expect(href).toMatch(/^\/auth\/authorization\?/);
    const login = await browser.go(new URL(href, right.origin).href);
    expect([login.status, login.dom.querySelector('input[name=password]') !== null]).toEqual([200, true]);

    const wrong = await host('/auth', (app, p) => app.use(mount('/oidc', p.middleware())));
    const res = await fetch(`${wrong.origin}/oidc/.well-known/openid-configuration`);
    expect(res.status).toBe(500);
    expect(((await res.json()) as { error_description: string }).error_description).toContain(
      'mounted under a path its issuer',
    );
  });
});

/** The mounting snippet (docs/guides/hosts.md), the install line (docs/guides/using-in-your-code.md), and the example host that follows them. */
describe('the documented mounting order: Portcullis before the host body parser', () => {
  const hosts = readFileSync(new URL('../../docs/guides/hosts.md', import.meta.url), 'utf8');
  const usage = readFileSync(new URL('../../docs/guides/using-in-your-code.md', import.meta.url), 'utf8');
  const snippet = /### Mounting into an existing Koa app\n```ts\n([^]*?)```/.exec(hosts)![1]!;
  const install = /\nnpm install \.\.\/portcullis\/portcullis-[\d.]+\.tgz ([^\n]+)/.exec(usage)?.[1] ?? '';

  test('the snippet mounts Portcullis before bodyParser(); every package it imports is on the install line', () => {
    expect(snippet.indexOf('app.use(portcullis.middleware())')).toBeGreaterThan(-1);
    expect(snippet.indexOf('app.use(portcullis.middleware())')).toBeLessThan(snippet.indexOf('app.use(bodyParser())'));
    const imported = [...snippet.matchAll(/from '([^'.][^']*)'/g)].map((m) => m[1]!).filter((p) => p !== 'portcullis');
    expect(imported.sort()).toEqual(['@koa/bodyparser', '@koa/router', 'koa']);
    const packages = install.split(/\s+/).map((p) => p.replace(/(.)@[^@/]*$/, '$1'));
    for (const p of imported) expect([p, packages.includes(p)]).toEqual([p, true]);
  });

  // A malformed JSON body to each JSON route of Portcullis: the protocol's error when Portcullis parses it; the host
  // parser's own text/plain 400 when it sits in front (the hosts guide says so).
  const MALFORMED = '{"redirect_uris": [';
  test.each([
    [
      'the example host as the hosts guide mounts it (default)',
      undefined,
      [
        [400, 'application/json', { error: 'invalid_request', error_description: 'failed to parse the request body' }],
        // fetch sends `Accept: */*`: GraphQL over HTTP's own type (lib/graphql/media-type.ts).
        [
          400,
          'application/graphql-response+json',
          { errors: [{ message: 'The request body is not valid JSON.', extensions: { code: 'BAD_REQUEST' } }] },
        ],
      ],
    ],
    [
      'the host body parser in front',
      'before' as const,
      [
        [400, 'text/plain', 'Bad Request'],
        [400, 'text/plain', 'Bad Request'],
      ],
    ],
  ])('%s: malformed JSON to /auth/registration and /api/graphql', async (_name, placement, expected) => {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const built = await buildHostApp(
      configFor(`${origin}/auth`, '/api/graphql'),
      placement ? { bodyParser: placement } : {},
    );
    built.app.silent = true; // Koa would print the parser's SyntaxError
    const http: Server = built.app.listen(port, '127.0.0.1');
    await new Promise((resolve) => http.once('listening', resolve));
    try {
      const answers = [];
      for (const [url, headers] of [
        [`${origin}/auth/registration`, { authorization: `Bearer ${DEMO.initialAccessToken}` }],
        [`${origin}/api/graphql`, {}],
      ] as const) {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: MALFORMED,
        });
        const type = res.headers.get('content-type')!.split(';')[0]!;
        answers.push([res.status, type, type.endsWith('json') ? await res.json() : await res.text()]);
      }
      expect(answers).toEqual(expected);
    } finally {
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
      await built.close();
    }
  });
});

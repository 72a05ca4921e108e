import { createHash, randomUUID } from 'node:crypto';
import { exportJWK, SignJWT, type JWK } from 'jose';
import { createServer, type PortcullisServer } from '../../lib/index.js';
import { generateCookieKey } from '../../lib/oidc/keys.js';
import { testSigningKeys } from '../helpers/run-resources.js';
import { TestBrowser } from '../helpers/browser.js';
import { browse, oidc, relyingParty, startAuthorization } from '../helpers/flow.js';
import { rawLines, rawRequest } from '../helpers/raw-http.js';
import { freePort, startServer, type RunningServer } from '../helpers/server.js';

/**
 * Every URL the server emits or compares derives from the configured issuer, never from `Host` or
 * `X-Forwarded-*` (cache/link poisoning, RFC 9449 §11.1 DPoP htu); other hosts get 421.
 */

// Rows are padded to four members: jest passes `done` to a test function that takes more parameters than its row.
const OWN_PATHS: Array<[string, string, Record<string, string> | undefined, string | undefined]> = (
  [
    ['GET', '/.well-known/openid-configuration'],
    ['GET', '/.well-known/oauth-authorization-server'],
    ['GET', '/.well-known/jwks.json'],
    [
      'GET',
      '/authorization?client_id=demo-web&response_type=code&scope=openid&redirect_uri=http%3A%2F%2Flocalhost%3A8080%2Fcallback',
    ],
    ['POST', '/token', { 'content-type': 'application/x-www-form-urlencoded' }, 'grant_type=authorization_code&code=x'],
    ['GET', '/userinfo', { authorization: 'Bearer x' }],
    [
      'POST',
      '/registration',
      { 'content-type': 'application/json', authorization: 'Bearer demo-initial-access-token' },
      '{"redirect_uris":["https://rp.example/cb"]}',
    ],
    ['POST', '/token/introspection', { 'content-type': 'application/x-www-form-urlencoded' }, 'token=x'],
    ['POST', '/token/revocation', { 'content-type': 'application/x-www-form-urlencoded' }, 'token=x'],
    ['GET', '/session/end'],
    ['GET', '/interaction/abc'],
    ['GET', '/account/signup'],
    ['POST', '/graphql', { 'content-type': 'application/json' }, '{"query":"{__typename}"}'],
  ] as Array<[string, string, Record<string, string>?, string?]>
).map(([m, p, h, b]) => [m, p, h, b]);

describe('Host header: development server on http://127.0.0.1:PORT', () => {
  let srv: RunningServer;
  let host: string;
  beforeAll(async () => {
    srv = await startServer();
    host = new URL(srv.issuer).host;
  });
  afterAll(() => srv.close());

  const HOSTS: Array<[string, (h: string) => string]> = [
    ['another name', () => 'evil.example'],
    ['another name with the issuer port', (h) => `evil.example:${h.split(':')[1]}`],
    ['the issuer address on another port', () => '127.0.0.1:1'],
    ['localhost (an alias the issuer does not name)', (h) => `localhost:${h.split(':')[1]}`],
    ['the issuer host as a prefix of another name', (h) => `${h.split(':')[0]}.evil.example:${h.split(':')[1]}`],
    ['the issuer host with a trailing dot and another port', () => '127.0.0.1.:2'],
  ];
  describe.each(HOSTS)('Host: %s', (_name, makeHost) => {
    test.each(OWN_PATHS)('%s %s → 421 invalid_request, nothing served', async (method, path, headers, body) => {
      const res = await rawRequest(srv.issuer, path, {
        method,
        headers: { ...headers, host: makeHost(host), accept: 'application/json' },
        body,
      });
      expect(res.status).toBe(421);
      expect(res.json()).toMatchObject({ error: 'invalid_request' });
      expect(res.text).not.toMatch(/evil|127\.0\.0\.1:[12]\b/);
    });
  });

  test.each([
    ['userinfo in Host', 'a@127.0.0.1'],
    ['a path in Host', '127.0.0.1/x'],
    ['a space in Host', '127.0.0.1 evil.example'],
    // RFC 9110 §7.2: Host is one value, not a list; the issuer first in a list is not the Host.
    ['a list, the issuer first', '127.0.0.1,evil.example'],
    ['a list with a space, the issuer first', '127.0.0.1, evil.example'],
    ['the issuer twice as a list', '127.0.0.1,127.0.0.1'],
    ['the issuer and an empty entry', '127.0.0.1,'],
  ])('a malformed Host (%s) → 400 invalid_request', async (_name, value) => {
    const res = await rawRequest(srv.issuer, '/.well-known/openid-configuration', {
      headers: { host: value.replaceAll('127.0.0.1', host), accept: 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_request', error_description: 'The Host header is malformed.' });
  });

  // RFC 9110 §7.2: more than one Host line is a bad request (Node keeps the first in req.headers.host).
  test.each([
    ['the issuer, then another host', (h: string) => [h, 'evil.example']],
    ['another host, then the issuer', (h: string) => ['evil.example', h]],
    ['the issuer twice', (h: string) => [h, h]],
  ])('two Host lines (%s) → 400 invalid_request', async (_name, lines) => {
    for (const [method, path, headers, body] of OWN_PATHS) {
      const fields = [
        ...lines(host).map((h) => `Host: ${h}`),
        'Accept: application/json',
        ...Object.entries(headers ?? {}).map(([k, v]) => `${k}: ${v}`),
      ];
      const res = await rawLines(srv.issuer, `${method} ${path}`, fields, body);
      expect([path, res.status]).toEqual([path, 400]);
      expect(JSON.parse(res.body)).toMatchObject({
        error: 'invalid_request',
        error_description: 'The request has more than one Host header.',
      });
    }
  });

  test('an absolute-form request-target naming another origin → 421, even with the right Host', async () => {
    const res = await rawRequest(srv.issuer, 'http://evil.example/.well-known/openid-configuration', {
      headers: { host, accept: 'application/json' },
    });
    expect(res.status).toBe(421);
  });

  // RFC 9110 §4.2.4: user information in the target's authority is an error, as it is in Host (400 above). Before,
  // `GET http://x@issuer/...` was served as if it named the issuer.
  test.each([
    ['a user name', (o: URL) => `http://x@${o.host}`],
    ['a user name and password', (o: URL) => `http://x:y@${o.host}`],
    ['an empty user name and a password', (o: URL) => `http://:y@${o.host}`],
    ['the issuer host as user name, another host after it', (o: URL) => `http://${o.host}@evil.example`],
  ])('an absolute-form request-target with %s → 400 invalid_request', async (_name, origin) => {
    for (const path of ['/.well-known/openid-configuration', '/token', '/interaction/abc', '/graphql']) {
      const res = await rawRequest(srv.issuer, origin(new URL(srv.issuer)) + path, {
        method: path === '/.well-known/openid-configuration' ? 'GET' : 'POST',
        headers: { host, accept: 'application/json' },
      });
      expect([path, res.status, res.json()]).toEqual([
        path,
        400,
        { error: 'invalid_request', error_description: 'The request-target is malformed: it names user information.' },
      ]);
    }
  });

  test('an absolute-form request-target naming the issuer is served with issuer URLs', async () => {
    const res = await rawRequest(srv.issuer, `${srv.issuer}/.well-known/openid-configuration`, { headers: { host } });
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ issuer: srv.issuer, token_endpoint: `${srv.issuer}/token` });
  });

  test('X-Forwarded-Host and X-Forwarded-Proto are ignored without proxy: discovery names the issuer', async () => {
    const res = await rawRequest(srv.issuer, '/.well-known/openid-configuration', {
      headers: { host, 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
    });
    expect(res.status).toBe(200);
    const doc = res.json<Record<string, string>>();
    for (const member of [
      'authorization_endpoint',
      'token_endpoint',
      'jwks_uri',
      'userinfo_endpoint',
      'end_session_endpoint',
      'introspection_endpoint',
      'revocation_endpoint',
      'registration_endpoint',
    ]) {
      expect(doc[member]).toMatch(new RegExp(`^${srv.issuer}/`));
    }
  });

  test.each(['/healthz', '/readyz'])('%s answers under any Host (load balancers probe by address)', async (path) => {
    const res = await rawRequest(srv.issuer, path, { headers: { host: '10.0.0.7:8080' } });
    expect(res.status).toBe(200);
  });

  test("paths that are not Portcullis' are left alone (404, not 421): a host app keeps its own Host policy", async () => {
    const res = await rawRequest(srv.issuer, '/not-ours', { headers: { host: 'evil.example' } });
    expect(res.status).toBe(404);
  });

  test('no HSTS on an http issuer', async () => {
    const res = await rawRequest(srv.issuer, '/.well-known/openid-configuration', { headers: { host } });
    expect(res.headers['strict-transport-security']).toBeUndefined();
  });
});

describe('allowedHosts and proxy: accepted names still get issuer URLs', () => {
  let srv: RunningServer;
  let host: string;
  beforeAll(async () => {
    srv = await startServer({ allowedHosts: ['alias.example', 'internal:8080'], proxy: true });
    host = new URL(srv.issuer).host;
  });
  afterAll(() => srv.close());

  test('Host: an allowed alias → served; discovery and registration_client_uri name the issuer', async () => {
    const discovery = await rawRequest(srv.issuer, '/.well-known/oauth-authorization-server', {
      headers: { host: 'alias.example' },
    });
    expect(discovery.status).toBe(200);
    expect(discovery.json()).toMatchObject({
      issuer: srv.issuer,
      token_endpoint: `${srv.issuer}/token`,
      jwks_uri: `${srv.issuer}/.well-known/jwks.json`,
    });
    expect(discovery.text).not.toContain('alias.example');

    const registered = await rawRequest(srv.issuer, '/registration', {
      method: 'POST',
      headers: {
        host: 'alias.example',
        'content-type': 'application/json',
        authorization: 'Bearer demo-initial-access-token',
      },
      body: JSON.stringify({ redirect_uris: ['https://rp.example/cb'] }),
    });
    expect(registered.status).toBe(201);
    expect(registered.json<{ registration_client_uri: string }>().registration_client_uri).toMatch(
      new RegExp(`^${srv.issuer}/registration/`),
    );
  });

  test('with proxy: X-Forwarded-Host is the host checked: another name → 421', async () => {
    const res = await rawRequest(srv.issuer, '/.well-known/openid-configuration', {
      headers: { host, 'x-forwarded-host': 'evil.example', accept: 'application/json' },
    });
    expect(res.status).toBe(421);
  });

  test('with proxy: X-Forwarded-Host of an allowed name and X-Forwarded-Proto https do not change the URLs advertised', async () => {
    const res = await rawRequest(srv.issuer, '/.well-known/openid-configuration', {
      headers: { host: 'internal:8080', 'x-forwarded-host': 'alias.example', 'x-forwarded-proto': 'https' },
    });
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ authorization_endpoint: `${srv.issuer}/authorization` });
  });
});

describe('DPoP htu is compared with the issuer-derived URL (RFC 9449 §4.3 check 9, §11.1)', () => {
  let srv: RunningServer;
  let token: string;
  let keyPair: Awaited<ReturnType<typeof oidc.randomDPoPKeyPair>>;
  let publicJwk: JWK;
  beforeAll(async () => {
    srv = await startServer({ allowedHosts: ['alias.example'] });
    const rp = await relyingParty(srv.issuer);
    keyPair = await oidc.randomDPoPKeyPair('ES256');
    publicJwk = await exportJWK(keyPair.publicKey);
    const dpop = oidc.getDPoPHandle(rp.config, keyPair);
    const start = await startAuthorization(rp, { scope: 'openid catalog:admin' });
    const seen = await browse(new TestBrowser(srv.issuer), start.url, {
      email: 'admin@example.com',
      password: 'admin-demo-password',
    });
    const tokens = await oidc.authorizationCodeGrant(
      rp.config,
      seen.callback,
      { pkceCodeVerifier: start.codeVerifier, expectedState: start.state, expectedNonce: start.nonce },
      undefined,
      { DPoP: dpop },
    );
    token = tokens.access_token;
  });
  afterAll(() => srv.close());

  const proof = (htm: string, htu: string) =>
    new SignJWT({
      htm,
      htu,
      iat: Math.floor(Date.now() / 1000),
      jti: randomUUID(),
      ath: createHash('sha256').update(token).digest('base64url'),
    })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: publicJwk })
      .sign(keyPair.privateKey);

  const ENDPOINTS: Array<[string, string, string, string | undefined]> = [
    ['/userinfo', 'GET', '', undefined],
    ['/graphql', 'POST', 'application/json', '{"query":"{ product(id: 3) { name } }"}'],
  ];

  test.each(ENDPOINTS)('%s: a proof for the issuer URL is accepted (control)', async (path, method, type, body) => {
    const res = await rawRequest(srv.issuer, path, {
      method,
      body,
      headers: {
        ...(type ? { 'content-type': type } : {}),
        authorization: `DPoP ${token}`,
        dpop: await proof(method, `${srv.issuer}${path}`),
      },
    });
    expect(res.status).toBe(200);
  });

  test.each(ENDPOINTS)(
    '%s: a proof whose htu names an allowed alias, sent with that alias as Host, is refused',
    async (path, method, type, body) => {
      const res = await rawRequest(srv.issuer, path, {
        method,
        body,
        headers: {
          host: 'alias.example',
          ...(type ? { 'content-type': type } : {}),
          authorization: `DPoP ${token}`,
          dpop: await proof(method, `http://alias.example${path}`),
        },
      });
      expect(res.status).toBe(401);
      expect(String(res.headers['www-authenticate'])).toContain('invalid_dpop_proof');
    },
  );

  test.each(ENDPOINTS)(
    '%s: a proof whose htu names another server, sent with that server as Host → 421',
    async (path, method, type, body) => {
      const res = await rawRequest(srv.issuer, path, {
        method,
        body,
        headers: {
          host: 'other.example',
          ...(type ? { 'content-type': type } : {}),
          authorization: `DPoP ${token}`,
          dpop: await proof(method, `http://other.example${path}`),
        },
      });
      expect(res.status).toBe(421);
    },
  );
});

describe('production behind TLS: https issuer, server listening on plain http', () => {
  let server: PortcullisServer;
  let base: string;
  let issuer: string;
  const start = async (proxy: boolean) => {
    const port = await freePort();
    issuer = `https://127.0.0.1:${port}`;
    base = `http://127.0.0.1:${port}`;
    const env = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    try {
      server = await createServer({
        issuer,
        proxy,
        storage: { type: 'memory' },
        keys: { signing: await testSigningKeys(), cookies: [generateCookieKey()] },
        mfa: { encryptionKey: generateCookieKey() },
        clients: [
          {
            client_id: 'rp',
            client_secret: 'a-secret-that-is-long-enough-0123456789',
            redirect_uris: ['https://rp.example/cb'],
          },
        ],
      });
    } finally {
      process.env.NODE_ENV = env;
    }
    await server.listen(port, '127.0.0.1');
  };
  afterEach(() => server.close());

  test.each([
    ['JSON', 'application/json', /"error":"invalid_request".*proxy/],
    ['a page', 'text/html', /<html[\s\S]*proxy/],
  ])(
    'proxy unset: a plain-http request is refused (%s) naming `proxy` as the fix, with HSTS',
    async (_name, accept, body) => {
      await start(false);
      for (const path of [
        '/.well-known/openid-configuration',
        '/authorization?client_id=rp',
        '/token',
        '/interaction/x',
      ]) {
        const res = await rawRequest(base, path, { headers: { accept } });
        expect(res.status).toBe(400);
        expect(res.text).toMatch(body);
        expect(res.headers['strict-transport-security']).toBe('max-age=31536000');
      }
      expect((await rawRequest(base, '/healthz')).status).toBe(200);
    },
  );

  test('proxy set and X-Forwarded-Proto https: https URLs, Secure cookies, HSTS; X-Forwarded-Proto http is refused', async () => {
    await start(true);
    const discovery = await rawRequest(base, '/.well-known/openid-configuration', {
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(discovery.status).toBe(200);
    expect(discovery.headers['strict-transport-security']).toBe('max-age=31536000');
    expect(discovery.json()).toMatchObject({
      issuer,
      authorization_endpoint: `${issuer}/authorization`,
      token_endpoint: `${issuer}/token`,
    });

    const authz = await rawRequest(
      base,
      `/authorization?${new URLSearchParams({ client_id: 'rp', response_type: 'code', scope: 'openid', redirect_uri: 'https://rp.example/cb', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256', nonce: 'n' })}`,
      { headers: { 'x-forwarded-proto': 'https' } },
    );
    expect(authz.status).toBe(303);
    expect(authz.headers.location).toMatch(/^\/interaction\//);
    const cookies = (authz.headers['set-cookie'] ?? []) as string[];
    expect(cookies.length).toBeGreaterThan(0);
    for (const cookie of cookies) expect(cookie).toMatch(/;\s*secure/i);

    const login = await rawRequest(base, authz.headers.location as string, {
      headers: { 'x-forwarded-proto': 'https', cookie: cookies.map((c) => c.split(';')[0]).join('; ') },
    });
    expect(login.status).toBe(200);
    for (const cookie of (login.headers['set-cookie'] ?? []) as string[]) expect(cookie).toMatch(/;\s*secure/i);

    const plain = await rawRequest(base, '/.well-known/openid-configuration', {
      headers: { 'x-forwarded-proto': 'http', accept: 'application/json' },
    });
    expect(plain.status).toBe(400);
    expect(plain.json<{ error_description: string }>().error_description).toMatch(/proxy/);
  });
});

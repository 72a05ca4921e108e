import { registrationPolicy } from '../../lib/oidc/registration-policy.js';
import { startCanary, type Canary } from '../helpers/canary.js';
import { register, WEB_CLIENT } from '../helpers/registration.js';
import { startServer, type RunningServer } from '../helpers/server.js';

let srv: RunningServer;
let canary: Canary;
beforeAll(async () => {
  canary = await startCanary();
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
  await canary.close();
});

describe('dynamic client registration (RFC 7591, OIDC Registration)', () => {
  test('a minimal web client registers; unrecognised metadata is ignored and left out of the response', async () => {
    const res = await register(srv.issuer, { ...WEB_CLIENT, favourite_colour: 'blue', software_statement_x: { a: 1 } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      client_name: 'Test RP',
      redirect_uris: ['https://rp.example/cb'],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    expect(res.body.client_id).toEqual(expect.any(String));
    expect(res.body.client_secret).toEqual(expect.any(String));
    expect(res.body).not.toHaveProperty('favourite_colour');
    expect(res.body).not.toHaveProperty('software_statement_x');
    expect(res.headers.get('cache-control')).toContain('no-store');
  });

  test('a body that is not application/json is refused', async () => {
    const form = await fetch(`${srv.issuer}/registration`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: 'Bearer demo-initial-access-token',
      },
      body: 'redirect_uris=https%3A%2F%2Frp.example%2Fcb',
    });
    expect(form.status).toBe(400);
    expect(await form.json()).toMatchObject({ error: 'invalid_request' });
    const array = await fetch(`${srv.issuer}/registration`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer demo-initial-access-token' },
      body: '["x"]',
    });
    expect(array.status).toBe(400);
  });

  test('the spec record registers once its insecure RSA1_5 is replaced; the signing algorithm is defaulted', async () => {
    const record = {
      application_type: 'web',
      redirect_uris: ['https://client.example.org/callback'],
      client_name: 'My Example',
      logo_uri: 'https://client.example.org/logo.png',
      token_endpoint_auth_method: 'client_secret_basic',
      jwks_uri: 'https://client.example.org/my_public_keys.jwks',
      userinfo_encrypted_response_alg: 'RSA1_5',
      userinfo_encrypted_response_enc: 'A128CBC-HS256',
    };
    const refused = await register(srv.issuer, record);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_client_metadata');
    expect(refused.body.error_description).toContain('userinfo_encrypted_response_alg');
    expect(refused.body.error_description).toContain('RSA-OAEP-256');
    const before = canary.connections;
    const ok = await register(srv.issuer, { ...record, userinfo_encrypted_response_alg: 'RSA-OAEP-256' });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({
      userinfo_encrypted_response_alg: 'RSA-OAEP-256',
      userinfo_encrypted_response_enc: 'A128CBC-HS256',
      userinfo_signed_response_alg: 'RS256',
      logo_uri: 'https://client.example.org/logo.png',
      jwks_uri: 'https://client.example.org/my_public_keys.jwks',
    });
    expect(canary.connections).toBe(before);
  });

  const c = () => canary.port;
  test.each([
    [
      'http redirect_uri on a public host',
      () => ({ redirect_uris: ['http://rp.example/cb'] }),
      'invalid_redirect_uri',
      'must use https',
    ],
    [
      'wildcard host',
      () => ({ redirect_uris: ['https://*.client.example.org/cb'] }),
      'invalid_redirect_uri',
      'wildcard',
    ],
    ['fragment', () => ({ redirect_uris: ['https://rp.example/cb#frag'] }), 'invalid_redirect_uri', 'fragment'],
    ['relative URI', () => ({ redirect_uris: ['/cb'] }), 'invalid_redirect_uri', 'absolute'],
    [
      'userinfo @ construct',
      () => ({ redirect_uris: ['https://rp.example@evil.example/cb'] }),
      'invalid_redirect_uri',
      'userinfo',
    ],
    ['javascript: scheme', () => ({ redirect_uris: ['javascript:alert(1)//'] }), 'invalid_redirect_uri', 'javascript'],
    [
      'data: scheme',
      () => ({ redirect_uris: ['data:text/html,<script>alert(1)</script>'] }),
      'invalid_redirect_uri',
      'data',
    ],
    [
      'custom scheme for a web client',
      () => ({ redirect_uris: ['com.example.app:/cb'] }),
      'invalid_redirect_uri',
      'web client',
    ],
    [
      'native scheme without a reverse domain',
      () => ({ application_type: 'native', redirect_uris: ['myapp:/cb'] }),
      'invalid_redirect_uri',
      'RFC 8252',
    ],
    [
      'http host merely beginning with localhost',
      () => ({ redirect_uris: ['http://localhost.evil.example/cb'] }),
      'invalid_redirect_uri',
      'must use https',
    ],
    ['empty redirect_uris', () => ({ redirect_uris: [] }), 'invalid_redirect_uri', 'redirect_uris'],
    [
      'post_logout_redirect_uris javascript:',
      () => ({ post_logout_redirect_uris: ['javascript:alert(1)'] }),
      'invalid_client_metadata',
      'post_logout_redirect_uris',
    ],
    [
      'jwks_uri plain http to loopback',
      () => ({ jwks_uri: `http://127.0.0.1:${c()}/jwks` }),
      'invalid_client_metadata',
      'jwks_uri must use https',
    ],
    [
      'jwks_uri https loopback',
      () => ({ jwks_uri: `https://127.0.0.1:${c()}/jwks` }),
      'invalid_client_metadata',
      'jwks_uri points to a non-public address',
    ],
    [
      'jwks_uri decimal loopback',
      () => ({ jwks_uri: `https://2130706433:${c()}/jwks` }),
      'invalid_client_metadata',
      'non-public address (127.0.0.1)',
    ],
    [
      'jwks_uri hex loopback',
      () => ({ jwks_uri: `https://0x7f.0.0.1:${c()}/jwks` }),
      'invalid_client_metadata',
      'non-public address (127.0.0.1)',
    ],
    [
      'jwks_uri octal loopback',
      () => ({ jwks_uri: `https://0177.0.0.1:${c()}/jwks` }),
      'invalid_client_metadata',
      'non-public address (127.0.0.1)',
    ],
    [
      'jwks_uri IPv4-mapped IPv6',
      () => ({ jwks_uri: `https://[::ffff:127.0.0.1]:${c()}/jwks` }),
      'invalid_client_metadata',
      'non-public address',
    ],
    [
      'jwks_uri IPv6 loopback',
      () => ({ jwks_uri: `https://[::1]:${c()}/jwks` }),
      'invalid_client_metadata',
      'non-public address',
    ],
    [
      'jwks_uri IPv4-compatible IPv6 loopback',
      () => ({ jwks_uri: `https://[::127.0.0.1]:${c()}/jwks` }),
      'invalid_client_metadata',
      'non-public address (::7f00:1)',
    ],
    [
      'jwks_uri 6to4 embedding RFC 1918',
      () => ({ jwks_uri: 'https://[2002:a00:1::1]/jwks' }),
      'invalid_client_metadata',
      'non-public address (2002:a00:1::1)',
    ],
    [
      'jwks_uri localhost',
      () => ({ jwks_uri: `https://localhost:${c()}/jwks` }),
      'invalid_client_metadata',
      'localhost',
    ],
    [
      'jwks_uri cloud metadata',
      () => ({ jwks_uri: 'https://169.254.169.254/latest/meta-data/' }),
      'invalid_client_metadata',
      '169.254.169.254',
    ],
    ['jwks_uri RFC 1918', () => ({ jwks_uri: 'https://10.0.0.5/jwks' }), 'invalid_client_metadata', '10.0.0.5'],
    ['jwks_uri CGNAT', () => ({ jwks_uri: 'https://100.64.1.1/jwks' }), 'invalid_client_metadata', '100.64.1.1'],
    ['jwks_uri IPv6 ULA', () => ({ jwks_uri: 'https://[fd12::1]/jwks' }), 'invalid_client_metadata', 'fd12::1'],
    [
      'sector_identifier_uri loopback',
      () => ({ sector_identifier_uri: `http://127.0.0.1:${c()}/sector` }),
      'invalid_client_metadata',
      'sector_identifier_uri',
    ],
    [
      'userinfo RSA1_5',
      () => ({ userinfo_encrypted_response_alg: 'RSA1_5' }),
      'invalid_client_metadata',
      'RSA-OAEP-256',
    ],
    [
      'id_token RSA1_5',
      () => ({ id_token_encrypted_response_alg: 'RSA1_5' }),
      'invalid_client_metadata',
      'id_token_encrypted_response_alg RSA1_5',
    ],
    [
      'unknown encryption enc',
      () => ({ userinfo_encrypted_response_alg: 'RSA-OAEP-256', userinfo_encrypted_response_enc: 'A128CBC' }),
      'invalid_client_metadata',
      'userinfo_encrypted_response_enc must be one of',
    ],
    [
      'enc without alg',
      () => ({ userinfo_encrypted_response_enc: 'A128GCM' }),
      'invalid_client_metadata',
      'requires userinfo_encrypted_response_alg',
    ],
    ['logo_uri javascript:', () => ({ logo_uri: 'javascript:alert(1)' }), 'invalid_client_metadata', 'logo_uri'],
    ['client_name of the wrong type', () => ({ client_name: { en: 'x' } }), 'invalid_client_metadata', 'client_name'],
    // Shown on the consent page: a right-to-left override makes "Acme\u202Emoc.elgoog" read "Acme google.com".
    ...['\u202E', '\u202D', '\u2066', '\u2067', '\u2068', '\u2069', '\u200F', '\u061C', '\n', '\u0007'].map(
      (c): [string, () => object, string, string] => [
        `client_name with U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`,
        () => ({ client_name: `Acme${c}moc.elgoog` }),
        'invalid_client_metadata',
        'client_name must not hold control or bidirectional formatting characters (such as U+202E): they would change how the consent page reads',
      ],
    ),
  ])('refused: %s', async (_name, extra, error, description) => {
    const before = canary.connections;
    const res = await register(srv.issuer, { ...WEB_CLIENT, ...extra() });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(error);
    expect(res.body.error_description).toContain(description);
    expect(canary.connections).toBe(before);
  });

  test.each([
    ['loopback http for a web client in development', { redirect_uris: ['http://localhost:8080/callback'] }],
    ['loopback IP http for a native client', { application_type: 'native', redirect_uris: ['http://127.0.0.1/cb'] }],
    [
      'reverse-domain scheme for a native client',
      { application_type: 'native', redirect_uris: ['com.example.app:/oauth2redirect'] },
    ],
    ['a client_name in other scripts', { client_name: 'متجر Acme 株式会社 Ünïcødé' }],
    [
      "encrypted userinfo with the client's keys by value",
      {
        // ECDH-ES for this EC key: RSA-OAEP had no key to encrypt to (test/registration/encryption-keys.test.ts).
        userinfo_encrypted_response_alg: 'ECDH-ES',
        userinfo_encrypted_response_enc: 'A256GCM',
        jwks: {
          keys: [
            {
              kty: 'EC',
              crv: 'P-256',
              use: 'enc',
              x: 'MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4',
              y: '4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM',
            },
          ],
        },
      },
    ],
  ])('accepted: %s', async (_name, extra) => {
    const res = await register(srv.issuer, { ...WEB_CLIENT, ...extra });
    expect(res.status).toBe(201);
  });

  test('production refuses plain-http loopback redirect URIs for web clients, not for native ones', () => {
    const policy = registrationPolicy({ production: true, allowedFetchOrigins: [] });
    const ctx = { oidc: { route: 'registration' } } as never;
    expect(() =>
      policy.validator(ctx, 'redirect_uris', ['http://localhost:8080/cb'], { application_type: 'web' }),
    ).toThrow(expect.objectContaining({ error: 'invalid_redirect_uri' }));
    expect(() =>
      policy.validator(ctx, 'redirect_uris', ['http://127.0.0.1:8080/cb'], { application_type: 'native' }),
    ).not.toThrow();
    const dev = registrationPolicy({ production: false, allowedFetchOrigins: [] });
    expect(() =>
      dev.validator(ctx, 'redirect_uris', ['http://localhost:8080/cb'], { application_type: 'web' }),
    ).not.toThrow();
  });
});

describe('registration management (RFC 7592)', () => {
  test('read, update (with a rotated registration access token), delete', async () => {
    const created = await register(srv.issuer, WEB_CLIENT);
    expect(created.status).toBe(201);
    const uri = created.body.registration_client_uri as string;
    const rat = created.body.registration_access_token as string;
    expect(uri).toBe(`${srv.issuer}/registration/${created.body.client_id as string}`);

    const read = await fetch(uri, { headers: { authorization: `Bearer ${rat}` } });
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ client_id: created.body.client_id, client_name: 'Test RP' });
    expect((await fetch(uri, { headers: { authorization: 'Bearer not-the-token' } })).status).toBe(401);
    expect((await fetch(uri)).status).toBe(401);

    const {
      registration_access_token: _r,
      registration_client_uri: _u,
      client_id_issued_at: _i,
      client_secret_expires_at: _e,
      ...current
    } = created.body;
    const put = (token: string, body: Record<string, unknown>) =>
      fetch(uri, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      });

    const insecure = await put(rat, { ...current, userinfo_encrypted_response_alg: 'RSA1_5' });
    expect(insecure.status).toBe(400);
    expect(await insecure.json()).toMatchObject({ error: 'invalid_client_metadata' });
    const badRedirect = await put(rat, { ...current, redirect_uris: ['http://rp.example/cb'] });
    expect(badRedirect.status).toBe(400);
    expect(await badRedirect.json()).toMatchObject({ error: 'invalid_redirect_uri' });

    const updated = await put(rat, { ...current, client_name: 'Renamed RP' });
    expect(updated.status).toBe(200);
    const updatedBody = (await updated.json()) as Record<string, unknown>;
    expect(updatedBody.client_name).toBe('Renamed RP');
    const rotated = updatedBody.registration_access_token as string;
    expect(rotated).not.toBe(rat);
    expect((await fetch(uri, { headers: { authorization: `Bearer ${rat}` } })).status).toBe(401);

    const del = await fetch(uri, { method: 'DELETE', headers: { authorization: `Bearer ${rotated}` } });
    expect(del.status).toBe(204);
    expect((await fetch(uri, { headers: { authorization: `Bearer ${rotated}` } })).status).toBe(401);
  });
});

describe('initial access tokens', () => {
  test('a minted single-use token registers one client; a refused attempt does not spend it', async () => {
    const token = await srv.server.mintInitialAccessToken({ expiresIn: 600 });
    const refused = await register(srv.issuer, { redirect_uris: ['http://rp.example/cb'] }, token);
    expect(refused.status).toBe(400);
    expect((await register(srv.issuer, WEB_CLIENT, token)).status).toBe(201);
    const again = await register(srv.issuer, WEB_CLIENT, token);
    expect(again.status).toBe(401);
    expect(again.body.error).toBe('invalid_token');
  });

  test('a single-use token raced by concurrent registrations creates exactly one client', async () => {
    const token = await srv.server.mintInitialAccessToken();
    const results = await Promise.all(Array.from({ length: 6 }, () => register(srv.issuer, WEB_CLIENT, token)));
    expect(results.map((r) => r.status).sort()).toEqual([201, 401, 401, 401, 401, 401]);
  });

  test('a multi-use token registers several clients and carries its expiry', async () => {
    const token = await srv.server.mintInitialAccessToken({ singleUse: false, expiresIn: 120 });
    expect((await register(srv.issuer, WEB_CLIENT, token)).status).toBe(201);
    expect((await register(srv.issuer, WEB_CLIENT, token)).status).toBe(201);
    const stored = await srv.server.provider.InitialAccessToken.find(token);
    expect(stored!.exp! - stored!.iat!).toBe(120);
  });

  test('the configured token keeps working; a wrong or missing one creates nothing', async () => {
    expect((await register(srv.issuer, WEB_CLIENT)).status).toBe(201);
    const missing = await register(srv.issuer, { ...WEB_CLIENT, client_name: 'should-not-exist' }, null);
    expect(missing.status).toBe(401);
    expect(missing.body.error).toBe('invalid_token');
    const wrong = await register(
      srv.issuer,
      { ...WEB_CLIENT, client_name: 'should-not-exist' },
      'demo-initial-access-tokeX',
    );
    expect(wrong.status).toBe(401);
  });

  test('minting is refused when registration is off', async () => {
    const off = await startServer({ registration: {} });
    try {
      await expect(off.server.mintInitialAccessToken()).rejects.toMatchObject({
        code: 'ERR_CONFIG_INVALID',
        path: 'registration.enabled',
      });
    } finally {
      await off.close();
    }
  });

  test('registration.enabled without a configured token accepts minted tokens only', async () => {
    const minted = await startServer({ registration: { enabled: true } });
    try {
      expect((await register(minted.issuer, WEB_CLIENT)).status).toBe(401);
      const token = await minted.server.mintInitialAccessToken();
      expect((await register(minted.issuer, WEB_CLIENT, token)).status).toBe(201);
    } finally {
      await minted.close();
    }
  });
});

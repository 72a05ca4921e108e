import { startServer, type RunningServer } from '../helpers/server.js';

let srv: RunningServer;
beforeAll(async () => { srv = await startServer(); });
afterAll(() => srv.close());

async function getJson(path: string, init?: RequestInit) {
  const res = await fetch(`${srv.issuer}${path}`, init);
  return { status: res.status, headers: res.headers, body: await res.json() as Record<string, unknown> };
}

describe('discovery and keys', () => {
  test('both discovery documents are served with the same metadata at the spec paths', async () => {
    const openid = await getJson('/.well-known/openid-configuration');
    const oauth = await getJson('/.well-known/oauth-authorization-server');
    expect(openid.status).toBe(200);
    expect(oauth.status).toBe(200);
    expect(oauth.body).toEqual(openid.body);
    expect(openid.body).toMatchObject({
      issuer: srv.issuer,
      authorization_endpoint: `${srv.issuer}/authorization`,
      token_endpoint: `${srv.issuer}/token`,
      userinfo_endpoint: `${srv.issuer}/userinfo`,
      registration_endpoint: `${srv.issuer}/registration`,
      jwks_uri: `${srv.issuer}/.well-known/jwks.json`,
      request_uri_parameter_supported: false,
      code_challenge_methods_supported: ['S256'],
    });
    expect(openid.body.scopes_supported).toEqual(expect.arrayContaining(['openid', 'profile', 'email', 'address', 'phone', 'offline_access', 'catalog:admin']));
    expect(openid.body.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(['client_secret_basic', 'client_secret_post']));
  });

  test('the JWKS publishes public keys only, with kid, use and alg', async () => {
    const { status, body } = await getJson('/.well-known/jwks.json');
    expect(status).toBe(200);
    const keys = body.keys as Array<Record<string, unknown>>;
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k']) expect(key[secret]).toBeUndefined();
      expect(key).toMatchObject({ use: 'sig', alg: 'RS256' });
      expect(typeof key.kid).toBe('string');
    }
  });

  test('registration is refused without the initial access token', async () => {
    const body = JSON.stringify({ redirect_uris: ['https://rp.example/cb'] });
    const anon = await getJson('/registration', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(anon.status).toBe(401);
    expect(anon.body.error).toBe('invalid_token');
    const wrong = await getJson('/registration', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer wrong-token-000000' }, body });
    expect(wrong.status).toBe(401);
    const ok = await getJson('/registration', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer demo-initial-access-token' }, body });
    expect(ok.status).toBe(201);
    expect(ok.body.client_id).toEqual(expect.any(String));
  });

  test('without an initial access token in config there is no registration endpoint', async () => {
    const local = await startServer({ registration: {} });
    try {
      const res = await fetch(`${local.issuer}/registration`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer demo-initial-access-token' }, body: '{"redirect_uris":["https://rp.example/cb"]}' });
      expect(res.status).toBe(404);
      const discovery = await (await fetch(`${local.issuer}/.well-known/openid-configuration`)).json() as Record<string, unknown>;
      expect(discovery.registration_endpoint).toBeUndefined();
    } finally {
      await local.close();
    }
  });

  test('an unknown path is a plain 404, not a stack trace', async () => {
    const res = await fetch(`${srv.issuer}/no/such/path`);
    expect(res.status).toBe(404);
  });
});

import { TestBrowser } from '../helpers/browser.js';
import { relyingParty, startAuthorization } from '../helpers/flow.js';
import { startServer, type RunningServer } from '../helpers/server.js';

let srv: RunningServer;
// keys: {} keeps development's ephemeral key set, which the JWKS test below checks (not the run's shared keys)
beforeAll(async () => {
  srv = await startServer({ keys: {} });
});
afterAll(() => srv.close());

async function getJson(path: string, init?: RequestInit) {
  const res = await fetch(`${srv.issuer}${path}`, init);
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
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
    expect(openid.body.scopes_supported).toEqual(
      expect.arrayContaining(['openid', 'profile', 'email', 'address', 'phone', 'offline_access', 'catalog:admin']),
    );
    expect(openid.body.token_endpoint_auth_methods_supported).toEqual(
      expect.arrayContaining(['client_secret_basic', 'client_secret_post']),
    );
  });

  test('every member required by RFC 8414 §2 and OpenID Connect Discovery §3 is present, the same in both documents', async () => {
    const openid = (await getJson('/.well-known/openid-configuration')).body;
    const oauth = (await getJson('/.well-known/oauth-authorization-server')).body;
    const required = [
      // OpenID Connect Discovery 1.0 §3 REQUIRED
      'issuer',
      'authorization_endpoint',
      'token_endpoint',
      'jwks_uri',
      'response_types_supported',
      'subject_types_supported',
      'id_token_signing_alg_values_supported',
      // §3 RECOMMENDED, and RFC 8414 §2 members for what this server does
      'userinfo_endpoint',
      'registration_endpoint',
      'scopes_supported',
      'claims_supported',
      'response_modes_supported',
      'grant_types_supported',
      'token_endpoint_auth_methods_supported',
      'code_challenge_methods_supported',
      'introspection_endpoint',
      'revocation_endpoint',
      'request_uri_parameter_supported',
      'userinfo_signing_alg_values_supported',
      'userinfo_encryption_alg_values_supported',
      'userinfo_encryption_enc_values_supported',
    ];
    for (const doc of [openid, oauth]) {
      for (const member of required) expect([member, doc[member] !== undefined]).toEqual([member, true]);
      expect(doc.issuer).toBe(srv.issuer);
    }
    expect(openid).toMatchObject({
      introspection_endpoint: `${srv.issuer}/token/introspection`,
      revocation_endpoint: `${srv.issuer}/token/revocation`,
      subject_types_supported: ['public'],
      response_types_supported: expect.arrayContaining(['code']),
      response_modes_supported: expect.arrayContaining(['query', 'fragment']),
    });
    expect(openid.id_token_signing_alg_values_supported).toEqual(expect.arrayContaining(['RS256', 'ES256', 'EdDSA']));
    expect(openid.id_token_signing_alg_values_supported).not.toContain('none');
    expect(openid.userinfo_encryption_alg_values_supported).not.toContain('RSA1_5');
    expect(openid.userinfo_encryption_enc_values_supported).toEqual(
      expect.arrayContaining(['A128CBC-HS256', 'A256GCM']),
    );
  });

  test('the JWKS publishes public keys only, with kid, use and alg', async () => {
    const { status, body } = await getJson('/.well-known/jwks.json');
    expect(status).toBe(200);
    const keys = body.keys as Array<Record<string, unknown>>;
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k']) expect(key[secret]).toBeUndefined();
      expect(key).toMatchObject({ use: 'sig', alg: expect.stringMatching(/^(RS256|ES256|EdDSA)$/) });
      expect(typeof key.kid).toBe('string');
    }
    // Development's ephemeral set: RS256 (the OpenID Connect default) plus ES256 and EdDSA.
    expect(keys.map((k) => k.alg).sort()).toEqual(['ES256', 'EdDSA', 'RS256']);
  });

  test('registration is refused without the initial access token', async () => {
    const body = JSON.stringify({ redirect_uris: ['https://rp.example/cb'] });
    const anon = await getJson('/registration', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(anon.status).toBe(401);
    expect(anon.body.error).toBe('invalid_token');
    const wrong = await getJson('/registration', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer wrong-token-000000' },
      body,
    });
    expect(wrong.status).toBe(401);
    const ok = await getJson('/registration', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer demo-initial-access-token' },
      body,
    });
    expect(ok.status).toBe(201);
    expect(ok.body.client_id).toEqual(expect.any(String));
  });

  test('without an initial access token in config there is no registration endpoint', async () => {
    const local = await startServer({ registration: {} });
    try {
      const res = await fetch(`${local.issuer}/registration`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer demo-initial-access-token' },
        body: '{"redirect_uris":["https://rp.example/cb"]}',
      });
      expect(res.status).toBe(404);
      const discovery = (await (await fetch(`${local.issuer}/.well-known/openid-configuration`)).json()) as Record<
        string,
        unknown
      >;
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

// OpenID Connect Discovery 1.0 §3 (and RFC 8414 §2): ui_locales_supported lists the languages of the pages and mails
// (`ui_locales`, OIDC Core §3.1.2.1). Before, the member was missing. Claims are not localised (no `name#de`), so
// there is no claims_locales_supported.
describe('languages', () => {
  test('openid-client reads ui_locales_supported: the shipped languages, and no claims_locales_supported', async () => {
    const rp = await relyingParty(srv.issuer);
    const metadata = rp.config.serverMetadata();
    expect([metadata.ui_locales_supported, metadata.claims_locales_supported]).toEqual([['en', 'de'], undefined]);
    expect((await getJson('/.well-known/oauth-authorization-server')).body.ui_locales_supported).toEqual(['en', 'de']);
  });

  // Configuration cannot add a language (`ui.messages` takes `en` and `de` only; another is a ConfigError), and a
  // default language or reworded messages change nothing of what is served.
  test.each([
    ['the defaults', {}],
    [
      'German by default, with reworded messages',
      { ui: { defaultLocale: 'de' as const, messages: { de: { 'login.title': 'Willkommen' } } } },
    ],
  ])('with %s, every advertised language is one the login page is served in', async (_name, overrides) => {
    const local = await startServer(overrides);
    try {
      const rp = await relyingParty(local.issuer);
      const advertised = rp.config.serverMetadata().ui_locales_supported!;
      expect(advertised).toEqual(['en', 'de']);
      for (const locale of advertised) {
        const start = await startAuthorization(rp, { ui_locales: locale });
        const page = await new TestBrowser(local.issuer).go(String(start.url));
        expect([locale, page.dom.querySelector('html')?.getAttribute('lang')]).toEqual([locale, locale]);
      }
    } finally {
      await local.close();
    }
  });
});

import { register, WEB_CLIENT } from '../helpers/registration.js';
import { startServer, type RunningServer } from '../helpers/server.js';

// oidc-provider deduplicates every list member (and the words of a response type and of scope) without a word:
// `redirect_uris: [a, a]` was registered as `[a]`, `response_types: ["code code"]` as `["code"]`, and the client was
// never told its metadata was rewritten. grant_types and whole response types were refused already; every other
// list member is now refused the same way (invalid_redirect_uri for redirect_uris, as its other checks).
let srv: RunningServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});

const CB = 'https://rp.example/cb';
const refused: Array<[string, Record<string, unknown>, string, string]> = [
  [
    'a repeated redirect URI',
    { redirect_uris: [CB, 'https://rp.example/other', CB] },
    'invalid_redirect_uri',
    `redirect_uris lists "${CB}" more than once`,
  ],
  [
    'a repeated post-logout redirect URI',
    { post_logout_redirect_uris: [CB, CB] },
    'invalid_client_metadata',
    `post_logout_redirect_uris lists "${CB}" more than once`,
  ],
  [
    'a response type repeating its word',
    { response_types: ['code code'] },
    'invalid_client_metadata',
    'response_types entry "code code" lists "code" more than once',
  ],
  [
    'a response type repeating a word among others',
    { response_types: ['code id_token code'], grant_types: ['authorization_code', 'implicit'] },
    'invalid_client_metadata',
    'response_types entry "code id_token code" lists "code" more than once',
  ],
  [
    'a repeated response mode',
    { response_modes: ['query', 'query'] },
    'invalid_client_metadata',
    'response_modes lists "query" more than once',
  ],
  [
    'a repeated default ACR value',
    { default_acr_values: ['urn:portcullis:mfa', 'urn:portcullis:mfa'] },
    'invalid_client_metadata',
    'default_acr_values lists "urn:portcullis:mfa" more than once',
  ],
  [
    'a repeated contact',
    { contacts: ['ops@rp.example', 'dev@rp.example', 'ops@rp.example'] },
    'invalid_client_metadata',
    'contacts lists "ops@rp.example" more than once',
  ],
  [
    'a repeated scope',
    { scope: 'openid email openid' },
    'invalid_client_metadata',
    'scope lists "openid" more than once',
  ],
];

describe('repeated values in list members are refused, not merged (RFC 7591 §2, §3.2.1)', () => {
  test.each(refused)('%s', async (_name, metadata, error, description) => {
    const res = await register(srv.issuer, { ...WEB_CLIENT, ...metadata });
    expect([res.status, res.body.error]).toEqual([400, error]);
    expect(res.body.error_description).toContain(description);
  });

  test.each([
    [
      'a repeated redirect URI',
      { redirect_uris: [CB, CB] },
      'invalid_redirect_uri',
      `redirect_uris lists "${CB}" more than once`,
    ],
    [
      'a response type repeating its word',
      { response_types: ['code code'] },
      'invalid_client_metadata',
      'response_types entry "code code" lists "code" more than once',
    ],
  ])('an RFC 7592 update with %s is refused', async (_name, metadata, error, description) => {
    const created = await register(srv.issuer, WEB_CLIENT);
    const {
      registration_access_token: token,
      registration_client_uri: uri,
      client_id_issued_at: _i,
      client_secret_expires_at: _e,
      ...current
    } = created.body;
    const put = await fetch(uri as string, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token as string}` },
      body: JSON.stringify({ ...current, ...metadata }),
    });
    expect(put.status).toBe(400);
    expect(await put.json()).toEqual({ error, error_description: expect.stringContaining(description) });
  });

  test('distinct values come back as sent (URIs differing only in a path or port are not repeats)', async () => {
    const sent = {
      redirect_uris: [CB, 'https://rp.example/cb/', 'https://rp.example:8443/cb', 'https://rp.example:8444/cb'],
      post_logout_redirect_uris: [CB, 'https://rp.example/bye'],
      response_types: ['code', 'code id_token'],
      grant_types: ['authorization_code', 'implicit'],
      response_modes: ['query', 'form_post'],
      default_acr_values: ['urn:portcullis:mfa', 'urn:portcullis:pwd'],
      contacts: ['ops@rp.example', 'dev@rp.example'],
      scope: 'openid email',
    };
    const res = await register(srv.issuer, { ...WEB_CLIENT, ...sent });
    expect([res.status, res.body.error_description]).toEqual([201, undefined]);
    for (const [key, value] of Object.entries(sent)) expect([key, res.body[key]]).toEqual([key, value]);
  });
});

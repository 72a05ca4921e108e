import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { register, WEB_CLIENT } from '../helpers/registration.js';
import { startServer, type RunningServer } from '../helpers/server.js';

// oidc-provider (8 and later) authenticates a client at the introspection and revocation endpoints with its
// token_endpoint_auth_method and drops introspection_endpoint_auth_method / revocation_endpoint_auth_method
// silently. Before this rule a client registered with introspection_endpoint_auth_method "none" got a 201, and
// every introspection it sent with its client_id alone was 401 invalid_client. A value other than the token
// endpoint's method is refused at registration and at RFC 7592 updates.
let srv: RunningServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});

function differs(endpoint: string, value: string, tokenMethod: string): string {
  return `${endpoint}_endpoint_auth_method "${value}" differs from token_endpoint_auth_method "${tokenMethod}": this server authenticates a client at the ${endpoint} endpoint with its token_endpoint_auth_method, so ${endpoint} requests sent that way would always fail with invalid_client`;
}

const refused: Array<[string, Record<string, unknown>, string]> = [
  [
    'introspection "none" with the default client_secret_basic',
    { introspection_endpoint_auth_method: 'none' },
    differs('introspection', 'none', 'client_secret_basic'),
  ],
  [
    'revocation "none" with the default client_secret_basic',
    { revocation_endpoint_auth_method: 'none' },
    differs('revocation', 'none', 'client_secret_basic'),
  ],
  [
    'introspection "none" with client_secret_post',
    { token_endpoint_auth_method: 'client_secret_post', introspection_endpoint_auth_method: 'none' },
    differs('introspection', 'none', 'client_secret_post'),
  ],
  [
    'introspection client_secret_post with client_secret_basic',
    { introspection_endpoint_auth_method: 'client_secret_post' },
    differs('introspection', 'client_secret_post', 'client_secret_basic'),
  ],
  [
    'revocation client_secret_basic for a public client',
    { token_endpoint_auth_method: 'none', revocation_endpoint_auth_method: 'client_secret_basic' },
    differs('revocation', 'client_secret_basic', 'none'),
  ],
];

async function post(path: string, form: Record<string, string>, basic?: [string, string]) {
  const res = await fetch(`${srv.issuer}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(basic ? { authorization: `Basic ${Buffer.from(basic.join(':')).toString('base64')}` } : {}),
    },
    body: new URLSearchParams(form),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as Record<string, unknown> | undefined };
}

describe('introspection_endpoint_auth_method and revocation_endpoint_auth_method (RFC 7662 §2.1, RFC 7009 §2.1)', () => {
  test.each(refused)('%s is refused', async (_name, metadata, description) => {
    const res = await register(srv.issuer, { ...WEB_CLIENT, ...metadata });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_client_metadata');
    expect(res.body.error_description).toContain(description);
  });

  test('an RFC 7592 update adding introspection_endpoint_auth_method "none" is refused', async () => {
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
      body: JSON.stringify({ ...current, introspection_endpoint_auth_method: 'none' }),
    });
    expect(put.status).toBe(400);
    expect(await put.json()).toEqual({
      error: 'invalid_client_metadata',
      error_description: expect.stringContaining(differs('introspection', 'none', 'client_secret_basic')),
    });
  });

  test('a public client may name "none" for both; its introspection and revocation then authenticate with client_id alone', async () => {
    const res = await register(srv.issuer, {
      ...WEB_CLIENT,
      token_endpoint_auth_method: 'none',
      introspection_endpoint_auth_method: 'none',
      revocation_endpoint_auth_method: 'none',
    });
    expect(res.status).toBe(201);
    const clientId = res.body.client_id as string;
    expect(await post('/token/introspection', { token: 'unknown-token', client_id: clientId })).toEqual({
      status: 200,
      body: { active: false },
    });
    expect(await post('/token/revocation', { token: 'unknown-token', client_id: clientId })).toEqual({
      status: 200,
      body: undefined,
    });
  });

  test('a confidential client naming its own method is accepted and introspects with its secret', async () => {
    const res = await register(srv.issuer, {
      ...WEB_CLIENT,
      introspection_endpoint_auth_method: 'client_secret_basic',
    });
    expect(res.status).toBe(201);
    const auth: [string, string] = [res.body.client_id as string, res.body.client_secret as string];
    expect(await post('/token/introspection', { token: 'unknown-token' }, auth)).toEqual({
      status: 200,
      body: { active: false },
    });
    // The trap the refusal closes: with the client_id alone the same client is not authenticated.
    expect(await post('/token/introspection', { token: 'unknown-token', client_id: auth[0] })).toMatchObject({
      status: 401,
      body: { error: 'invalid_client' },
    });
  });
});

// The same for introspection_endpoint_auth_signing_alg / revocation_endpoint_auth_signing_alg: oidc-provider 9 drops
// them and checks a client's JWT assertion at both endpoints against token_endpoint_auth_signing_alg (any allowed
// algorithm when that is absent). Before, a 201 told the client its introspection alg was registered.
const es256 = await generateKeyPair('ES256', { extractable: true });
const rs256 = await generateKeyPair('RS256', { extractable: true });
const PRIVATE_KEY_JWT = {
  ...WEB_CLIENT,
  token_endpoint_auth_method: 'private_key_jwt',
  jwks: {
    keys: [
      { ...(await exportJWK(es256.publicKey)), kid: 'es', use: 'sig' },
      { ...(await exportJWK(rs256.publicKey)), kid: 'rs', use: 'sig' },
    ],
  },
};

function algDiffers(endpoint: string, value: string, tokenAlg?: string): string {
  const token = tokenAlg
    ? `token_endpoint_auth_signing_alg "${tokenAlg}"`
    : 'token_endpoint_auth_signing_alg, which is not sent';
  return `${endpoint}_endpoint_auth_signing_alg "${value}" differs from ${token}: this server checks a client's JWT assertion at the ${endpoint} endpoint as at the token endpoint and does not keep ${endpoint}_endpoint_auth_signing_alg; omit it, or send the same value as token_endpoint_auth_signing_alg`;
}

const refusedAlgs: Array<[string, Record<string, unknown>, string]> = [
  [
    'introspection RS256 with token ES256',
    { ...PRIVATE_KEY_JWT, token_endpoint_auth_signing_alg: 'ES256', introspection_endpoint_auth_signing_alg: 'RS256' },
    algDiffers('introspection', 'RS256', 'ES256'),
  ],
  [
    'revocation RS256 with token ES256',
    { ...PRIVATE_KEY_JWT, token_endpoint_auth_signing_alg: 'ES256', revocation_endpoint_auth_signing_alg: 'RS256' },
    algDiffers('revocation', 'RS256', 'ES256'),
  ],
  [
    'introspection ES256 without a token endpoint alg',
    { ...PRIVATE_KEY_JWT, introspection_endpoint_auth_signing_alg: 'ES256' },
    algDiffers('introspection', 'ES256'),
  ],
  [
    'revocation HS256 for client_secret_jwt without a token endpoint alg',
    { ...WEB_CLIENT, token_endpoint_auth_method: 'client_secret_jwt', revocation_endpoint_auth_signing_alg: 'HS256' },
    algDiffers('revocation', 'HS256'),
  ],
  [
    'introspection RS256 for a client_secret_basic client',
    { ...WEB_CLIENT, introspection_endpoint_auth_signing_alg: 'RS256' },
    algDiffers('introspection', 'RS256'),
  ],
];

/** A private_key_jwt client assertion for `endpoint`, signed with `alg`. */
async function assertion(clientId: string, endpoint: string, alg: 'ES256' | 'RS256') {
  return new SignJWT({})
    .setProtectedHeader({ alg, kid: alg === 'ES256' ? 'es' : 'rs' })
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience(`${srv.issuer}${endpoint}`)
    .setJti(crypto.randomUUID())
    .setIssuedAt()
    .setExpirationTime('1m')
    .sign(alg === 'ES256' ? es256.privateKey : rs256.privateKey);
}

describe('introspection_endpoint_auth_signing_alg and revocation_endpoint_auth_signing_alg (RFC 7591 §2, RFC 8414 §2)', () => {
  test.each(refusedAlgs)('%s is refused', async (_name, metadata, description) => {
    const res = await register(srv.issuer, metadata);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_client_metadata');
    expect(res.body.error_description).toContain(description);
  });

  test('an RFC 7592 update adding introspection_endpoint_auth_signing_alg RS256 to an ES256 client is refused', async () => {
    const created = await register(srv.issuer, { ...PRIVATE_KEY_JWT, token_endpoint_auth_signing_alg: 'ES256' });
    expect(created.status).toBe(201);
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
      body: JSON.stringify({ ...current, introspection_endpoint_auth_signing_alg: 'RS256' }),
    });
    expect(put.status).toBe(400);
    expect(await put.json()).toEqual({
      error: 'invalid_client_metadata',
      error_description: expect.stringContaining(algDiffers('introspection', 'RS256', 'ES256')),
    });
  });

  test('the token endpoint alg is accepted for both; introspection then takes an ES256 assertion and refuses RS256', async () => {
    const res = await register(srv.issuer, {
      ...PRIVATE_KEY_JWT,
      token_endpoint_auth_signing_alg: 'ES256',
      introspection_endpoint_auth_signing_alg: 'ES256',
      revocation_endpoint_auth_signing_alg: 'ES256',
    });
    expect(res.status).toBe(201);
    const clientId = res.body.client_id as string;
    const form = async (alg: 'ES256' | 'RS256') => ({
      token: 'unknown-token',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: await assertion(clientId, '/token/introspection', alg),
    });
    expect(await post('/token/introspection', await form('ES256'))).toEqual({ status: 200, body: { active: false } });
    // The trap the refusal closes: an introspection_endpoint_auth_signing_alg of RS256 would not have been honoured.
    expect(await post('/token/introspection', await form('RS256'))).toMatchObject({
      status: 401,
      body: { error: 'invalid_client' },
    });
  });
});

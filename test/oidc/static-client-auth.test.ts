import { SignJWT, exportJWK, generateKeyPair, importJWK, type CryptoKey, type KeyObject } from 'jose';
import { randomUUID } from 'node:crypto';
import { startHttp } from '../helpers/canary.js';
import { TestBrowser } from '../helpers/browser.js';
import { browse, oidc, signIn, startAuthorization, type RelyingParty } from '../helpers/flow.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { structuredCloneInTestRealm } from '../helpers/realm.js';

// Configured (static) clients authenticate with private_key_jwt (inline jwks or jwks_uri) and client_secret_jwt,
// and may require DPoP-bound tokens: what discovery advertises and registration accepts. Before, the option schema
// refused each of these clients, so the server did not start.
const REDIRECT = 'http://localhost:8080/callback';
const HS_SECRET = 'k6Qw3v9XyZ0pL2mN4bR7tU1sE8aD5fG-hJiKoPqWxYc'; // 43 bytes ≥ 32 (RFC 7518 §3.2)
const es = await generateKeyPair('ES256');
const rs = await generateKeyPair('RS256', { extractable: true });
const rsAsPs = await importJWK(await exportJWK(rs.privateKey), 'PS256'); // the same RSA key, for RSA-PSS
const other = await generateKeyPair('ES256');
const esJwk = { ...(await exportJWK(es.publicKey)), kty: 'EC', kid: 'rp-es', alg: 'ES256', use: 'sig' };
// No `alg` member: only the client's token_endpoint_auth_signing_alg limits it to RS256 (a PS256 row below).
const rsJwk = { ...(await exportJWK(rs.publicKey)), kid: 'rp-rs', use: 'sig' };
const base = {
  redirect_uris: [REDIRECT],
  grant_types: ['authorization_code' as const],
  response_types: ['code' as const],
};

let keyHost: Awaited<ReturnType<typeof startHttp>>;
let srv: RunningServer;
let restoreClone: () => void;
beforeAll(async () => {
  restoreClone = structuredCloneInTestRealm(); // the inline jwks of a configured client under Jest (see the helper)
  keyHost = await startHttp((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: [rsJwk] }));
  });
  srv = await startServer({
    outboundFetch: { allowedOrigins: [keyHost.origin] },
    clients: [
      {
        ...base,
        client_id: 'rp-es256',
        token_endpoint_auth_method: 'private_key_jwt',
        token_endpoint_auth_signing_alg: 'ES256',
        jwks: { keys: [esJwk] },
      },
      {
        ...base,
        client_id: 'rp-rs256',
        token_endpoint_auth_method: 'private_key_jwt',
        token_endpoint_auth_signing_alg: 'RS256',
        jwks_uri: `${keyHost.origin}/jwks`,
      },
      {
        ...base,
        client_id: 'rp-hs256',
        token_endpoint_auth_method: 'client_secret_jwt',
        token_endpoint_auth_signing_alg: 'HS256',
        client_secret: HS_SECRET,
      },
      { ...base, client_id: 'rp-dpop', client_secret: HS_SECRET, dpop_bound_access_tokens: true },
    ],
  });
});
afterAll(async () => {
  restoreClone?.();
  await srv?.close();
  await keyHost?.close();
});

async function rp(clientId: string, auth: oidc.ClientAuth): Promise<RelyingParty> {
  const config = await oidc.discovery(new URL(srv.issuer), clientId, undefined, auth, {
    execute: [oidc.allowInsecureRequests],
  });
  return { config, clientId, redirectUri: REDIRECT };
}

describe('configured clients complete code + PKCE with openid-client', () => {
  test.each([
    ['private_key_jwt, ES256, inline jwks', 'rp-es256', () => oidc.PrivateKeyJwt({ key: es.privateKey, kid: 'rp-es' })],
    ['private_key_jwt, RS256, jwks_uri', 'rp-rs256', () => oidc.PrivateKeyJwt({ key: rs.privateKey, kid: 'rp-rs' })],
    ['client_secret_jwt, HS256', 'rp-hs256', () => oidc.ClientSecretJwt(HS_SECRET)],
  ])('%s', async (_name, clientId, auth) => {
    const { tokens } = await signIn(srv.issuer, await rp(clientId, auth()));
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.claims()?.aud).toBe(clientId);
    expect(tokens.access_token).toEqual(expect.any(String));
  });

  test('a dpop_bound_access_tokens client gets a DPoP-bound token when it sends a proof', async () => {
    const party = await rp('rp-dpop', oidc.ClientSecretBasic(HS_SECRET));
    const start = await startAuthorization(party);
    const { callback } = await browse(new TestBrowser(srv.issuer), start.url);
    const tokens = await oidc.authorizationCodeGrant(
      party.config,
      callback,
      { pkceCodeVerifier: start.codeVerifier, expectedState: start.state, expectedNonce: start.nonce },
      undefined,
      { DPoP: oidc.getDPoPHandle(party.config, await oidc.randomDPoPKeyPair('ES256')) },
    );
    expect(tokens.token_type).toBe('dpop');
  });
});

const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
async function assertion(clientId: string, alg: string, key: CryptoKey | KeyObject | Uint8Array, kid?: string) {
  return new SignJWT({})
    .setProtectedHeader({ alg, ...(kid ? { kid } : {}) })
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience(srv.issuer)
    .setJti(randomUUID())
    .setIssuedAt()
    .setExpirationTime('1m')
    .sign(key);
}

/** POSTs to the introspection endpoint, which authenticates the client like the token endpoint. */
async function introspect(body: Record<string, string>) {
  const res = await fetch(`${srv.issuer}/token/introspection`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({ token: 'x', ...body }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('the configured method is the only one a client may use', () => {
  const FAILED = { error: 'invalid_client', error_description: 'client authentication failed' };
  test.each<[string, () => Promise<Record<string, string>>]>([
    [
      'private_key_jwt client presenting a client_secret',
      async () => ({ client_id: 'rp-es256', client_secret: HS_SECRET }),
    ],
    [
      'private_key_jwt client, assertion signed by another key under its kid',
      async () => ({
        client_id: 'rp-es256',
        client_assertion_type: ASSERTION_TYPE,
        client_assertion: await assertion('rp-es256', 'ES256', other.privateKey, 'rp-es'),
      }),
    ],
    [
      'private_key_jwt client, RS256 assertion from a key it does not have',
      async () => ({
        client_id: 'rp-es256',
        client_assertion_type: ASSERTION_TYPE,
        client_assertion: await assertion('rp-es256', 'RS256', rs.privateKey),
      }),
    ],
    [
      'jwks_uri client, assertion signed by a key not at its jwks_uri',
      async () => ({
        client_id: 'rp-rs256',
        client_assertion_type: ASSERTION_TYPE,
        client_assertion: await assertion('rp-rs256', 'ES256', other.privateKey),
      }),
    ],
    [
      'jwks_uri client limited to RS256, PS256 assertion with its own key',
      async () => ({
        client_id: 'rp-rs256',
        client_assertion_type: ASSERTION_TYPE,
        client_assertion: await assertion('rp-rs256', 'PS256', rsAsPs, 'rp-rs'),
      }),
    ],
    [
      'client_secret_jwt client, HS256 with another secret',
      async () => ({
        client_id: 'rp-hs256',
        client_assertion_type: ASSERTION_TYPE,
        client_assertion: await assertion('rp-hs256', 'HS256', new TextEncoder().encode(`${HS_SECRET}x`)),
      }),
    ],
    [
      'client_secret_jwt client presenting its secret in the body',
      async () => ({ client_id: 'rp-hs256', client_secret: HS_SECRET }),
    ],
  ])('%s: 401 invalid_client', async (_name, body) => {
    expect(await introspect(await body())).toEqual({ status: 401, body: FAILED });
  });

  test('each client is accepted with its own method (the rows above fail for their reason)', async () => {
    for (const body of [
      {
        client_id: 'rp-es256',
        client_assertion_type: ASSERTION_TYPE,
        client_assertion: await assertion('rp-es256', 'ES256', es.privateKey, 'rp-es'),
      },
      {
        client_id: 'rp-rs256',
        client_assertion_type: ASSERTION_TYPE,
        client_assertion: await assertion('rp-rs256', 'RS256', rs.privateKey, 'rp-rs'),
      },
      {
        client_id: 'rp-hs256',
        client_assertion_type: ASSERTION_TYPE,
        client_assertion: await assertion('rp-hs256', 'HS256', new TextEncoder().encode(HS_SECRET)),
      },
    ])
      expect(await introspect(body)).toEqual({ status: 200, body: { active: false } });
  });

  test('a dpop_bound_access_tokens client is refused a token without a DPoP proof (400 invalid_grant); the same code then works with one', async () => {
    const party = await rp('rp-dpop', oidc.ClientSecretBasic(HS_SECRET));
    const start = await startAuthorization(party);
    const { callback } = await browse(new TestBrowser(srv.issuer), start.url);
    const res = await fetch(`${srv.issuer}/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`rp-dpop:${HS_SECRET}`).toString('base64')}`,
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        redirect_uri: REDIRECT,
        code_verifier: start.codeVerifier,
      }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_grant', error_description: 'grant request is invalid' });
    // oidc-provider checks the proof before it consumes the code: the refusal above was for the missing proof.
    const tokens = await oidc.authorizationCodeGrant(
      party.config,
      callback,
      { pkceCodeVerifier: start.codeVerifier, expectedState: start.state, expectedNonce: start.nonce },
      undefined,
      { DPoP: oidc.getDPoPHandle(party.config, await oidc.randomDPoPKeyPair('ES256')) },
    );
    expect(tokens.token_type).toBe('dpop');
  });
});

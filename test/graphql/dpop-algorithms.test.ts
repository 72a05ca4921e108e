import { createHash, randomUUID } from 'node:crypto';
import { exportJWK, SignJWT } from 'jose';
import { TestBrowser } from '../helpers/browser.js';
import { browse, oidc, relyingParty, startAuthorization, type RelyingParty } from '../helpers/flow.js';
import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * One list of DPoP proof algorithms for the whole server (lib/core/dpop-algorithms.ts): a relying party
 * (openid-client) whose DPoP key is of any listed kind gets a bound token at /token and uses it at /userinfo and
 * at the GraphQL endpoint. Before, /token accepted only oidc-provider's default ES256, Ed25519 and EdDSA, and the
 * GraphQL endpoint ES256, ES384, EdDSA, PS256 and RS256: openid-client signs proofs of an Ed25519 key with alg
 * `Ed25519`, so its token worked at /userinfo and every GraphQL request was refused (401 invalid_dpop_proof).
 */

const LISTED = ['ES256', 'ES384', 'Ed25519', 'EdDSA', 'PS256', 'RS256'];
let srv: RunningServer;
let rp: RelyingParty;
beforeAll(async () => {
  srv = await startServer();
  rp = await relyingParty(srv.issuer);
});
afterAll(() => srv.close());

const QUERY = JSON.stringify({ query: '{ product(id: 3) { name } }' });

/** Code flow as admin through the real forms, the token bound to `keyPair` by openid-client's DPoP handle. */
async function boundToken(keyPair: Awaited<ReturnType<typeof oidc.randomDPoPKeyPair>>): Promise<string> {
  const start = await startAuthorization(rp, { scope: 'openid catalog:admin' });
  const seen = await browse(new TestBrowser(srv.issuer), start.url, {
    email: 'admin@example.com',
    password: 'admin-demo-password',
  });
  const tokens = await oidc.authorizationCodeGrant(
    rp.config,
    seen.callback,
    {
      pkceCodeVerifier: start.codeVerifier,
      expectedState: start.state,
      expectedNonce: start.nonce,
    },
    undefined,
    { DPoP: oidc.getDPoPHandle(rp.config, keyPair) },
  );
  expect(tokens.token_type.toLowerCase()).toBe('dpop');
  return tokens.access_token;
}

test('discovery advertises the list the GraphQL endpoint names in its challenges', async () => {
  const metadata = (await (await fetch(`${srv.issuer}/.well-known/openid-configuration`)).json()) as Record<
    string,
    unknown
  >;
  expect(metadata.dpop_signing_alg_values_supported).toEqual(LISTED);
  const res = await fetch(srv.graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'DPoP unknown' },
    body: QUERY,
  });
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toContain(`algs="${LISTED.join(' ')}"`);
});

describe.each(['ES256', 'ES384', 'Ed25519', 'PS256', 'RS256'])('openid-client with a %s DPoP key', (alg) => {
  let keyPair: Awaited<ReturnType<typeof oidc.randomDPoPKeyPair>>;
  let token: string;
  beforeAll(async () => {
    keyPair = await oidc.randomDPoPKeyPair(alg);
    token = await boundToken(keyPair);
  });

  test('the bound token answers at the GraphQL endpoint', async () => {
    const res = await oidc.fetchProtectedResource(
      rp.config,
      token,
      new URL(srv.graphqlUrl),
      'POST',
      QUERY,
      new Headers({ 'content-type': 'application/json' }),
      { DPoP: oidc.getDPoPHandle(rp.config, keyPair) },
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { product: { name: 'Prototype Drone' } } });
  });

  test('and at /userinfo', async () => {
    const claims = await oidc.fetchUserInfo(rp.config, token, oidc.skipSubjectCheck, {
      DPoP: oidc.getDPoPHandle(rp.config, keyPair),
    });
    expect(claims.sub).toEqual(expect.any(String));
  });
});

test("an Ed25519 key's proof with the alg name EdDSA is accepted too", async () => {
  const keyPair = await oidc.randomDPoPKeyPair('Ed25519');
  const token = await boundToken(keyPair);
  const proof = await new SignJWT({
    htm: 'POST',
    htu: srv.graphqlUrl,
    iat: Math.floor(Date.now() / 1000),
    jti: randomUUID(),
    ath: createHash('sha256').update(token).digest('base64url'),
  })
    .setProtectedHeader({ alg: 'EdDSA', typ: 'dpop+jwt', jwk: await exportJWK(keyPair.publicKey) })
    .sign(keyPair.privateKey);
  const res = await fetch(srv.graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `DPoP ${token}`, dpop: proof },
    body: QUERY,
  });
  expect(res.status).toBe(200);
});

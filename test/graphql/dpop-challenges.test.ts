import { createHash, randomUUID } from 'node:crypto';
import { exportJWK, SignJWT, type JWK } from 'jose';
import { TestBrowser } from '../helpers/browser.js';
import { browse, oidc, relyingParty, type RelyingParty } from '../helpers/flow.js';
import { catalogGraphql, startServer, type RunningServer } from '../helpers/server.js';

/**
 * A request that presents its token in the DPoP scheme is answered with a DPoP challenge naming the accepted proof
 * algorithms (RFC 9449 §7.1), at the GraphQL endpoint and at /userinfo. Before, GraphQL's 403 `insufficient_scope`
 * (introspection.requiredScope) and its 400 for a token in the URL query challenged in the Bearer scheme, and every
 * DPoP challenge's `algs` left out ES384, which the endpoint accepts.
 */

/** One list for the whole server (lib/core/dpop-algorithms.ts): GraphQL and /userinfo name the same algorithms. */
const ALGS = 'algs="ES256 ES384 Ed25519 EdDSA PS256 RS256"';
const PROBE = JSON.stringify({ query: '{ __schema { queryType { name } } }' });

let srv: RunningServer;
let rp: RelyingParty;
let keyPair: Awaited<ReturnType<typeof oidc.randomDPoPKeyPair>>;
let jwk: JWK;
let bound: string;
let boundNoOpenid: string;
let bearer: string;

/** Code flow as alice (no catalog:admin), or as admin for `catalog:admin` alone (no openid, so no nonce); optionally DPoP-bound. */
async function tokenFor(scope: string, dpop: boolean) {
  const [codeVerifier, state, nonce] = [
    oidc.randomPKCECodeVerifier(),
    oidc.randomState(),
    scope.includes('openid') ? oidc.randomNonce() : undefined,
  ];
  const url = oidc.buildAuthorizationUrl(rp.config, {
    redirect_uri: rp.redirectUri,
    scope,
    state,
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    ...(nonce ? { nonce } : {}),
  });
  const admin = nonce ? {} : { email: 'admin@example.com', password: 'admin-demo-password' };
  const seen = await browse(new TestBrowser(srv.issuer), url, admin);
  const tokens = await oidc.authorizationCodeGrant(
    rp.config,
    seen.callback,
    { pkceCodeVerifier: codeVerifier, expectedState: state, expectedNonce: nonce },
    undefined,
    dpop ? { DPoP: oidc.getDPoPHandle(rp.config, keyPair) } : undefined,
  );
  return tokens.access_token;
}

beforeAll(async () => {
  srv = await startServer({
    graphql: { ...catalogGraphql(), introspection: { enabled: true, requiredScope: 'catalog:admin' } },
  });
  rp = await relyingParty(srv.issuer);
  keyPair = await oidc.randomDPoPKeyPair('ES256');
  jwk = await exportJWK(keyPair.publicKey);
  [bound, boundNoOpenid, bearer] = [
    await tokenFor('openid email', true),
    await tokenFor('catalog:admin', true),
    await tokenFor('openid email', false),
  ];
});
afterAll(() => srv.close());

const proof = (token: string, htm: string, htu: string) =>
  new SignJWT({
    htm,
    htu,
    iat: Math.floor(Date.now() / 1000),
    jti: randomUUID(),
    ath: createHash('sha256').update(token).digest('base64url'),
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
    .sign(keyPair.privateKey);

async function graphql(headers: () => Promise<Record<string, string>>, query = '') {
  const res = await fetch(srv.graphqlUrl + query, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(await headers()) },
    body: PROBE,
  });
  return { status: res.status, challenge: res.headers.get('www-authenticate') };
}
async function userinfo(headers: () => Promise<Record<string, string>>) {
  const res = await fetch(`${srv.issuer}/userinfo`, { headers: await headers() });
  return { status: res.status, challenge: res.headers.get('www-authenticate') };
}
const dpop =
  (token: () => string, url: () => string, htm = 'POST') =>
  async () => ({ authorization: `DPoP ${token()}`, dpop: await proof(token(), htm, url()) });
const graphqlUrl = () => srv.graphqlUrl;
const userinfoUrl = () => `${srv.issuer}/userinfo`;

test.each([
  [
    'GraphQL: a bound token without the introspection scope',
    () => graphql(dpop(() => bound, graphqlUrl)),
    403,
    `DPoP error="insufficient_scope", error_description="introspection needs a token with the scope named", scope="catalog:admin", ${ALGS}`,
  ],
  [
    'GraphQL: an unknown token',
    () => graphql(async () => ({ authorization: 'DPoP unknown-token' })),
    401,
    `DPoP error="invalid_token", error_description="the access token is invalid or expired", ${ALGS}`,
  ],
  [
    'GraphQL: a bound token without its proof',
    () => graphql(async () => ({ authorization: `DPoP ${bound}` })),
    401,
    `DPoP error="invalid_dpop_proof", error_description="a DPoP-bound access token needs a DPoP proof header", ${ALGS}`,
  ],
  [
    'GraphQL: an unbound token in the DPoP scheme',
    () => graphql(async () => ({ authorization: `DPoP ${bearer}` })),
    401,
    `DPoP error="invalid_token", error_description="the access token is not DPoP-bound: use the Bearer scheme", ${ALGS}`,
  ],
  [
    'GraphQL: a token in the URL query too',
    () =>
      graphql(
        dpop(() => bound, graphqlUrl),
        '?access_token=x',
      ),
    400,
    `DPoP error="invalid_request", error_description="access tokens are not accepted in the URL query: send them in the Authorization header", ${ALGS}`,
  ],
  [
    'GraphQL, unchanged: the Bearer scheme without the scope',
    () => graphql(async () => ({ authorization: `Bearer ${bearer}` })),
    403,
    'Bearer error="insufficient_scope", error_description="introspection needs a token with the scope named", scope="catalog:admin"',
  ],
  ['GraphQL, unchanged: anonymous', () => graphql(async () => ({})), 401, 'Bearer scope="catalog:admin"'],
])('%s', async (_name, run, status, challenge) => {
  expect(await run()).toEqual({ status, challenge });
});

// oidc-provider's own challenges at /userinfo already follow RFC 9449 §7.1 (held: no change).
const REALM = () => `realm="${srv.issuer}"`;
const USERINFO_ALGS = ALGS;
test.each([
  [
    'a bound token without openid',
    () => userinfo(dpop(() => boundNoOpenid, userinfoUrl, 'GET')),
    403,
    () =>
      `DPoP ${REALM()}, error="insufficient_scope", error_description="access token missing openid scope", scope="openid", ${USERINFO_ALGS}`,
  ],
  [
    'an unknown token with a proof',
    () => userinfo(dpop(() => 'unknown-token', userinfoUrl, 'GET')),
    401,
    () => `DPoP ${REALM()}, error="invalid_token", error_description="invalid token provided", ${USERINFO_ALGS}`,
  ],
])('/userinfo: %s, a DPoP challenge', async (_name, run, status, challenge) => {
  expect(await run()).toEqual({ status, challenge: challenge() });
});

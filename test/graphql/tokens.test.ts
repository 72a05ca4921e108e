import { createHash, randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { generateSigningKeys } from '../../lib/oidc/keys.js';
import { TestBrowser } from '../helpers/browser.js';
import { browse, oidc, relyingParty, startAuthorization, type RelyingParty } from '../helpers/flow.js';
import { startServer, type RunningServer } from '../helpers/server.js';

/** Access tokens at /graphql: RFC 9068 JWT access tokens for the API's resource, RFC 9449 DPoP binding. */

let srv: RunningServer;
let rp: RelyingParty;
let signing: Awaited<ReturnType<typeof generateSigningKeys>>;

beforeAll(async () => {
  signing = await generateSigningKeys(['RS256']);
  srv = await startServer({ keys: { signing } });
  rp = await relyingParty(srv.issuer);
});
afterAll(() => srv.close());

type SigningKey = Parameters<SignJWT['sign']>[0];

const DELISTED = '{ product(id: 3) { name } }';

/** Code flow as admin through the real forms, optionally for the API resource and DPoP-bound. */
async function tokenFor(opts: { resource?: boolean; dpop?: oidc.DPoPHandle }) {
  const params: Record<string, string> = { scope: 'openid catalog:admin' };
  if (opts.resource) params.resource = srv.graphqlUrl;
  const start = await startAuthorization(rp, params);
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
    opts.dpop ? { DPoP: opts.dpop } : undefined,
  );
  return tokens.access_token;
}

async function call(headers: Record<string, string>, query = DELISTED) {
  const res = await fetch(srv.graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query }),
  });
  return {
    status: res.status,
    challenge: res.headers.get('www-authenticate'),
    body: (await res.json()) as { data?: unknown; errors?: Array<{ extensions: { code: string } }> },
  };
}

describe('JWT access tokens (RFC 9068) for resource=<graphql url>', () => {
  let jwt: string;
  beforeAll(async () => {
    jwt = await tokenFor({ resource: true });
  });

  test('the token is an at+jwt for this API and works without a storage lookup', async () => {
    const [header, payload] = jwt
      .split('.')
      .slice(0, 2)
      .map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()));
    expect(header.typ).toBe('at+jwt');
    expect(payload.aud).toBe(srv.graphqlUrl);
    expect(payload.scope).toBe('catalog:admin');
    const find = srv.server.provider.AccessToken.find;
    let lookups = 0;
    srv.server.provider.AccessToken.find = (async (...args: Parameters<typeof find>) => {
      lookups++;
      return find.apply(srv.server.provider.AccessToken, args);
    }) as typeof find;
    try {
      expect(await call({ authorization: `Bearer ${jwt}` })).toMatchObject({
        status: 200,
        body: { data: { product: { name: 'Prototype Drone' } } },
      });
    } finally {
      srv.server.provider.AccessToken.find = find;
    }
    expect(lookups).toBe(0);
  });

  const forge = async (claims: Record<string, unknown>, key?: SigningKey, typ = 'at+jwt') => {
    const jwk = signing.keys[0]!;
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ scope: 'catalog:admin', client_id: 'demo-web', ...claims })
      .setProtectedHeader({ alg: 'RS256', typ, kid: String(jwk.kid) })
      .setIssuer(srv.issuer)
      .setSubject('admin')
      .setIssuedAt(now)
      .setExpirationTime(typeof claims.exp === 'number' ? claims.exp : now + 60)
      .setJti(randomUUID())
      .sign(key ?? (await (await import('jose')).importJWK(jwk as JWK, 'RS256')));
  };

  test.each([
    [
      'audience of another resource server',
      () => forge({ aud: 'https://other-api.example/graphql' }),
      /another resource server/,
    ],
    ['no audience', () => forge({}), /another resource server|invalid or expired/],
    [
      'signed by a foreign key',
      async () => forge({ aud: srv.graphqlUrl }, (await generateKeyPair('RS256')).privateKey),
      /invalid or expired/,
    ],
    [
      'typ JWT instead of at+jwt (an ID token shape)',
      () => forge({ aud: srv.graphqlUrl }, undefined, 'JWT'),
      /invalid or expired/,
    ],
    ['expired', () => forge({ aud: srv.graphqlUrl, exp: Math.floor(Date.now() / 1000) - 120 }), /invalid or expired/],
  ])('a JWT with %s is refused with 401 invalid_token', async (_name, make, message) => {
    const res = await call({ authorization: `Bearer ${await make()}` });
    expect(res.status).toBe(401);
    expect(res.challenge).toMatch(/^Bearer error="invalid_token"/);
    expect(res.challenge).toMatch(message);
  });

  test('a control forged with the right key and audience is accepted (the rows above fail for their reason)', async () => {
    expect((await call({ authorization: `Bearer ${await forge({ aud: srv.graphqlUrl })}` })).status).toBe(200);
  });

  test('another resource indicator gets invalid_target at the authorization server', async () => {
    const start = await startAuthorization(rp, { resource: 'https://other-api.example/' });
    const browser = new TestBrowser(srv.issuer);
    const page = await browser.go(String(start.url));
    const target = new URL(page.redirectedTo ?? 'http://x/');
    expect(target.searchParams.get('error') ?? page.body).toMatch(/invalid_target/);
  });
});

describe('DPoP-bound access tokens (RFC 9449)', () => {
  for (const kind of ['opaque', 'JWT'] as const) {
    describe(`${kind} token`, () => {
      let keyPair: Awaited<ReturnType<typeof oidc.randomDPoPKeyPair>>;
      let token: string;
      let publicJwk: JWK;
      beforeAll(async () => {
        keyPair = await oidc.randomDPoPKeyPair('ES256');
        token = await tokenFor({ resource: kind === 'JWT', dpop: oidc.getDPoPHandle(rp.config, keyPair) });
        publicJwk = await exportJWK(keyPair.publicKey);
      });

      const proof = async (over: Record<string, unknown> = {}, key?: SigningKey, jwk?: JWK) =>
        new SignJWT({
          htm: 'POST',
          htu: srv.graphqlUrl,
          iat: Math.floor(Date.now() / 1000),
          jti: randomUUID(),
          ath: createHash('sha256').update(token).digest('base64url'),
          ...over,
        })
          .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: jwk ?? publicJwk })
          .sign(key ?? keyPair.privateKey);

      test('works with openid-client and a fresh proof', async () => {
        const res = await oidc.fetchProtectedResource(
          rp.config,
          token,
          new URL(srv.graphqlUrl),
          'POST',
          JSON.stringify({ query: DELISTED }),
          new Headers({ 'content-type': 'application/json' }),
          { DPoP: oidc.getDPoPHandle(rp.config, keyPair) },
        );
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({ data: { product: { name: 'Prototype Drone' } } });
      });

      test.each([
        [
          'the Bearer scheme (proof ignored)',
          async () => ({ authorization: `Bearer ${token}`, dpop: await proof() }),
          'invalid_token',
        ],
        ['no DPoP header', async () => ({ authorization: `DPoP ${token}` }), 'invalid_dpop_proof'],
        [
          'a proof for another URL',
          async () => ({ authorization: `DPoP ${token}`, dpop: await proof({ htu: `${srv.issuer}/other` }) }),
          'invalid_dpop_proof',
        ],
        [
          'a proof for another method',
          async () => ({ authorization: `DPoP ${token}`, dpop: await proof({ htm: 'GET' }) }),
          'invalid_dpop_proof',
        ],
        [
          'a proof without ath',
          async () => ({ authorization: `DPoP ${token}`, dpop: await proof({ ath: undefined }) }),
          'invalid_dpop_proof',
        ],
        [
          'a stale proof',
          async () => ({
            authorization: `DPoP ${token}`,
            dpop: await proof({ iat: Math.floor(Date.now() / 1000) - 3600 }),
          }),
          'invalid_dpop_proof',
        ],
        [
          'a proof signed by another key',
          async () => {
            const other = await generateKeyPair('ES256');
            return {
              authorization: `DPoP ${token}`,
              dpop: await proof({}, other.privateKey, await exportJWK(other.publicKey)),
            };
          },
          'invalid_dpop_proof',
        ],
        [
          'a proof with a mismatched embedded key',
          async () => {
            const other = await generateKeyPair('ES256');
            return {
              authorization: `DPoP ${token}`,
              dpop: await proof({}, keyPair.privateKey, await exportJWK(other.publicKey)),
            };
          },
          'invalid_dpop_proof',
        ],
      ])('refused with %s', async (_name, headers, error) => {
        const res = await call(await headers());
        expect(res.status).toBe(401);
        expect(res.challenge).toContain(`error="${error}"`);
        expect(res.body.data).toBeUndefined();
      });

      test('a replayed proof is refused', async () => {
        const headers = { authorization: `DPoP ${token}`, dpop: await proof() };
        expect((await call(headers)).status).toBe(200);
        const again = await call(headers);
        expect(again.status).toBe(401);
        expect(again.challenge).toContain('already used');
      });
    });
  }

  test('an unbound token sent with the DPoP scheme is refused', async () => {
    const token = await tokenFor({});
    expect((await call({ authorization: `DPoP ${token}` })).status).toBe(401);
    expect((await call({ authorization: `Bearer ${token}` })).status).toBe(200);
  });
});

describe('resource scopes and the role policy', () => {
  test('alice asking for catalog:admin on the API gets a JWT without it (rejected, no consent loop)', async () => {
    const start = await startAuthorization(rp, { scope: 'openid catalog:admin', resource: srv.graphqlUrl });
    const seen = await browse(new TestBrowser(srv.issuer), start.url, {});
    const tokens = await oidc.authorizationCodeGrant(rp.config, seen.callback, {
      pkceCodeVerifier: start.codeVerifier,
      expectedState: start.state,
      expectedNonce: start.nonce,
    });
    const payload = JSON.parse(Buffer.from(tokens.access_token.split('.')[1]!, 'base64url').toString());
    expect(payload.sub).toBe('alice');
    expect(payload.scope ?? '').not.toContain('catalog:admin');
    const res = await call({ authorization: `Bearer ${tokens.access_token}` });
    expect(res.body).toEqual({ data: { product: null } });
  });
});

import { relyingParty, signIn } from '../helpers/flow.js';
import { startServer, type RunningServer } from '../helpers/server.js';

let srv: RunningServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(() => srv.close());

function post(path: string, form: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(`${srv.issuer}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...headers },
    body: new URLSearchParams(form),
  });
}
const demoAuth = { client_id: 'demo-web', client_secret: 'demo-web-secret' };

describe('token introspection (RFC 7662) and revocation (RFC 7009)', () => {
  test('an authenticated client introspects its access token; after revocation it is inactive', async () => {
    const { tokens } = await signIn(srv.issuer, await relyingParty(srv.issuer), { params: { scope: 'openid email' } });
    const active = await post('/token/introspection', { token: tokens.access_token, ...demoAuth });
    expect(active.status).toBe(200);
    expect(await active.json()).toMatchObject({
      active: true,
      client_id: 'demo-web',
      sub: 'alice',
      scope: 'openid email',
      token_type: 'Bearer',
    });

    const revoked = await post('/token/revocation', {
      token: tokens.access_token,
      token_type_hint: 'access_token',
      ...demoAuth,
    });
    expect(revoked.status).toBe(200);
    const after = await post('/token/introspection', { token: tokens.access_token, ...demoAuth });
    expect(await after.json()).toEqual({ active: false });
    const userinfo = await fetch(`${srv.issuer}/userinfo`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(userinfo.status).toBe(401);
  });

  test.each([
    ['introspection without client authentication', '/token/introspection', { token: 'x' }, 400, 'invalid_request'],
    [
      'introspection with a wrong secret',
      '/token/introspection',
      { token: 'x', client_id: 'demo-web', client_secret: 'wrong-secret-000' },
      401,
      'invalid_client',
    ],
    ['revocation without client authentication', '/token/revocation', { token: 'x' }, 400, 'invalid_request'],
    [
      'revocation by an unknown client',
      '/token/revocation',
      { token: 'x', client_id: 'nobody', client_secret: 'whatever-000000' },
      401,
      'invalid_client',
    ],
  ])('%s is refused', async (_name, path, form, status, error) => {
    const res = await post(path, form as Record<string, string>);
    expect(res.status).toBe(status);
    const body = (await res.json()) as { error: string; error_description: string };
    expect(body.error).toBe(error);
    expect(body.error_description).toEqual(expect.any(String));
  });
});

/**
 * RFC 7662 §2.2: a token the caller may not introspect is `{ "active": false }`. oidc-provider answered every token
 * with a JWT header `400 unsupported_token_type`, so `verifyAccessTokenForUser` took an ID token posted in place of
 * an access token for an outage (`ERR_INTROSPECTION_FAILED`, the example's 503).
 */
describe('introspection of JWTs (ID tokens, JWT access tokens) answers inactive, never an error', () => {
  let tokens: { id_token?: string; access_token: string };
  let apiToken: string;
  beforeAll(async () => {
    const rp = await relyingParty(srv.issuer);
    ({ tokens } = await signIn(srv.issuer, rp, { params: { scope: 'openid email' } }));
    apiToken = (await signIn(srv.issuer, rp, { params: { scope: 'openid email', resource: srv.graphqlUrl } })).tokens
      .access_token;
  });
  const rows: Array<[string, () => string]> = [
    ["the caller's own ID token", () => tokens.id_token!],
    ["the caller's own JWT access token for the GraphQL API", () => apiToken],
    ['an unsigned JWT', () => 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJhbGljZSJ9.'],
    ['a JWT header with garbage after it', () => 'eyJhbGciOiJSUzI1NiJ9.x.y'],
  ];

  test.each(rows)('%s: 200 {"active":false}', async (_name, token) => {
    const res = await post('/token/introspection', { token: token(), ...demoAuth });
    expect({ status: res.status, body: await res.json(), cacheControl: res.headers.get('cache-control') }).toEqual({
      status: 200,
      body: { active: false },
      cacheControl: 'no-store',
    });
  });

  test.each(rows)('%s with a wrong client secret: still 401 invalid_client', async (_name, token) => {
    const res = await post('/token/introspection', {
      token: token(),
      client_id: 'demo-web',
      client_secret: 'wrong-secret-000',
    });
    expect({ status: res.status, error: ((await res.json()) as { error: string }).error }).toEqual({
      status: 401,
      error: 'invalid_client',
    });
  });

  test('the relying-party check refuses a posted ID token as inactive, not as an introspection failure', async () => {
    const { verifyAccessTokenForUser } = await import('../../lib/rp/index.js');
    await expect(
      verifyAccessTokenForUser({
        issuer: srv.issuer,
        clientId: demoAuth.client_id,
        clientSecret: demoAuth.client_secret,
        accessToken: tokens.id_token!,
        claimed: { sub: 'alice' },
      }),
    ).rejects.toMatchObject({ code: 'ERR_TOKEN_INACTIVE' });
  });

  test("revocation keeps RFC 7009's answer for a JWT: 400 unsupported_token_type", async () => {
    const res = await post('/token/revocation', { token: tokens.id_token!, ...demoAuth });
    expect({ status: res.status, error: ((await res.json()) as { error: string }).error }).toEqual({
      status: 400,
      error: 'unsupported_token_type',
    });
  });
});

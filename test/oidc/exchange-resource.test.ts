import { TestBrowser } from '../helpers/browser.js';
import { browse } from '../helpers/flow.js';
import { CHALLENGE, query, VERIFIER } from '../helpers/authorization.js';
import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * RFC 8707 §2.2 at the token endpoint: a `resource` the code or refresh token was not issued for (or more than one)
 * is refused with `invalid_target` before the code or refresh token is used up (lib/oidc/exchange-resource.ts). The
 * client can then send the request again without the mistake; before, oidc-provider had already consumed the code or
 * rotated the refresh token, and the retry was taken for a replay that revoked the whole grant.
 */

const RU = 'http://localhost:8080/callback';
const CLIENT = { client_id: 'demo-web', client_secret: 'demo-web-secret' };
const UNKNOWN = 'resource indicator is missing, or unknown';
const ONE = 'only a single resource indicator value must be requested/resolved during Access Token Request';

let srv: RunningServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(() => srv.close());

/** A code for alice, demo-web, `openid offline_access`, with `resource` at the authorization when given. */
async function code(resource?: string): Promise<string> {
  const params = {
    client_id: CLIENT.client_id,
    response_type: 'code',
    scope: 'openid offline_access',
    redirect_uri: RU,
    state: 's',
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
    ...(resource ? { resource } : {}),
  };
  const { callback } = await browse(new TestBrowser(srv.issuer), `${srv.issuer}/authorization?${query(params)}`);
  return callback.searchParams.get('code')!;
}

type TokenBody = { access_token?: string; refresh_token?: string; error?: string; error_description?: string };
async function token(
  params: Record<string, string | string[] | undefined>,
): Promise<{ status: number; body: TokenBody }> {
  const res = await fetch(`${srv.issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: query({ ...CLIENT, ...params }),
  });
  return { status: res.status, body: (await res.json()) as TokenBody };
}

const exchange = (c: string, resource?: string | string[]) =>
  token({ grant_type: 'authorization_code', code: c, redirect_uri: RU, code_verifier: VERIFIER, resource });

type Row = [
  name: string,
  atAuthorization: 'api' | undefined,
  resource: (api: string) => string | string[],
  description: string,
];
const ROWS: Row[] = [
  ['the API, which the authorization did not ask for', undefined, (api) => api, UNKNOWN],
  ['an unknown resource', undefined, () => 'https://attacker.example/', UNKNOWN],
  ["another resource than the authorization's", 'api', () => 'https://attacker.example/', UNKNOWN],
  ['two resources', 'api', (api) => [api, 'https://attacker.example/'], ONE],
];

describe('authorization code exchange', () => {
  test.each(ROWS)(
    'resource: %s → 400 invalid_target; the code still works without it',
    async (_name, atAuthorization, resource, description) => {
      const c = await code(atAuthorization ? srv.graphqlUrl : undefined);
      const refused = await exchange(c, resource(srv.graphqlUrl));
      expect(refused).toEqual({ status: 400, body: { error: 'invalid_target', error_description: description } });
      const retried = await exchange(c);
      expect(retried.status).toBe(200);
      expect(retried.body.access_token).toEqual(expect.any(String));
    },
  );

  test('the resource the authorization asked for is accepted', async () => {
    const res = await exchange(await code(srv.graphqlUrl), srv.graphqlUrl);
    expect(res.status).toBe(200);
    expect(res.body.access_token!.split('.')).toHaveLength(3); // an RFC 9068 JWT for the API
  });
});

describe('refresh', () => {
  test.each(ROWS)(
    'resource: %s → 400 invalid_target; the refresh token and the grant stay alive',
    async (_name, atAuthorization, resource, description) => {
      const c = await code(atAuthorization ? srv.graphqlUrl : undefined);
      const issued = await exchange(c);
      expect(issued.status).toBe(200);
      const refused = await token({
        grant_type: 'refresh_token',
        refresh_token: issued.body.refresh_token,
        resource: resource(srv.graphqlUrl),
      });
      expect(refused).toEqual({ status: 400, body: { error: 'invalid_target', error_description: description } });
      const retried = await token({ grant_type: 'refresh_token', refresh_token: issued.body.refresh_token });
      expect(retried.status).toBe(200);
      expect(retried.body.refresh_token).toEqual(expect.any(String));
      if (!atAuthorization) {
        const userinfo = await fetch(`${srv.issuer}/userinfo`, {
          headers: { authorization: `Bearer ${issued.body.access_token}` },
        });
        expect(userinfo.status).toBe(200);
      }
    },
  );

  test('the resource the refresh token was issued for is accepted', async () => {
    const issued = await exchange(await code(srv.graphqlUrl));
    const res = await token({
      grant_type: 'refresh_token',
      refresh_token: issued.body.refresh_token,
      resource: srv.graphqlUrl,
    });
    expect(res.status).toBe(200);
    expect(res.body.access_token!.split('.')).toHaveLength(3);
  });
});

import { TestBrowser } from '../helpers/browser.js';
import {
  CHALLENGE,
  VERIFIER,
  delivered,
  errorOnPage,
  pushRequest,
  query,
  requestObject,
} from '../helpers/authorization.js';
import { browse } from '../helpers/flow.js';
import { graphql, startServer, type RunningServer } from '../helpers/server.js';
import { createServer } from '../../lib/index.js';

/** OAuth-only mode (`openid: false`): SPEC Errors table, "openid scope added, or id_token used, at a service without OpenID Connect". */

const WEB = { id: 'demo-web', secret: 'demo-web-secret', uri: 'http://localhost:8080/callback' };

let srv: RunningServer;
beforeAll(async () => {
  srv = await startServer({
    openid: false,
    clients: [
      {
        client_id: WEB.id,
        client_secret: WEB.secret,
        redirect_uris: [WEB.uri],
        token_endpoint_auth_method: 'client_secret_post',
        grant_types: ['authorization_code', 'refresh_token'],
      },
    ],
  });
});
afterAll(() => srv.close());

const params = (extra: Record<string, string> = {}) => ({
  client_id: WEB.id,
  response_type: 'code',
  redirect_uri: WEB.uri,
  scope: 'catalog:admin',
  state: 'oauth-state',
  code_challenge: CHALLENGE,
  code_challenge_method: 'S256',
  ...extra,
});
const authorize = (p: Record<string, string>) => `${srv.issuer}/authorization?${query(p)}`;

describe('OpenID Connect requests are refused', () => {
  test.each([['openid'], ['openid profile'], ['catalog:admin openid']])(
    'scope=%s: invalid_scope at the redirect_uri, no code',
    async (scope) => {
      const page = await new TestBrowser(srv.issuer).go(authorize(params({ scope })));
      const out = delivered(page)!;
      expect(out.target).toBe(WEB.uri);
      expect(out.params).toMatchObject({ error: 'invalid_scope', scope: 'openid', state: 'oauth-state' });
      expect(out.params.error_description).toMatch(/OpenID Connect is disabled/);
      expect(out.params.code).toBeUndefined();
    },
  );

  test('scope=openid with an unregistered redirect_uri: the 400 page', async () => {
    const page = await new TestBrowser(srv.issuer).go(
      authorize(params({ scope: 'openid', redirect_uri: 'https://attacker.example/cb' })),
    );
    expect({ status: page.status, error: errorOnPage(page) }).toEqual({ status: 400, error: 'invalid_redirect_uri' });
  });

  test('scope=openid inside a request object or a pushed request: invalid_scope too', async () => {
    const request = await requestObject(srv.issuer, WEB.id, WEB.secret, params({ scope: 'openid' }));
    const viaJar = delivered(await new TestBrowser(srv.issuer).go(authorize({ client_id: WEB.id, request })))!;
    expect(viaJar.params).toMatchObject({ error: 'invalid_scope', state: 'oauth-state' });
    const viaPar = await pushRequest(srv.issuer, WEB.id, WEB.secret, params({ scope: 'openid' }));
    expect(viaPar).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
  });

  test.each(['id_token', 'id_token token', 'code id_token'])(
    'response_type=%s: unsupported_response_type',
    async (responseType) => {
      const page = await new TestBrowser(srv.issuer).go(authorize(params({ response_type: responseType, nonce: 'n' })));
      const out = delivered(page)!;
      expect(out.params).toMatchObject({ error: 'unsupported_response_type', state: 'oauth-state' });
      expect(out.params.id_token).toBeUndefined();
    },
  );

  test('userinfo and the OpenID discovery document are not served; RFC 8414 metadata is, without OpenID members', async () => {
    const userinfo = await fetch(`${srv.issuer}/userinfo`, { headers: { authorization: 'Bearer x' } });
    expect([userinfo.status, await userinfo.json()]).toEqual([
      404,
      { error: 'invalid_request', error_description: 'Not found: this server has no endpoint at this path.' },
    ]);
    // Nor in another case or with a trailing slash (oidc-provider's router would match those).
    for (const variant of ['/.well-known/openid-configuration/', '/.well-known/OpenID-Configuration']) {
      expect((await fetch(`${srv.issuer}${variant}`)).status).toBe(404);
    }
    const discovery = await fetch(`${srv.issuer}/.well-known/openid-configuration`);
    expect(discovery.status).toBe(404);
    // A registered OAuth error value (there is no "not_found" in the IANA OAuth Extensions Error registry).
    expect(await discovery.json()).toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringContaining('/.well-known/oauth-authorization-server'),
    });
    const res = await fetch(`${srv.issuer}/.well-known/oauth-authorization-server`);
    expect(res.status).toBe(200);
    const metadata = (await res.json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      issuer: srv.issuer,
      authorization_endpoint: `${srv.issuer}/authorization`,
      token_endpoint: `${srv.issuer}/token`,
      response_types_supported: ['code'],
    });
    for (const member of [
      'userinfo_endpoint',
      'id_token_signing_alg_values_supported',
      'claims_supported',
      'subject_types_supported',
    ]) {
      expect(metadata[member]).toBeUndefined();
    }
    expect(metadata.scopes_supported).not.toContain('openid');
    expect(metadata.scopes_supported).toContain('catalog:admin');
  });
});

describe('plain OAuth 2.0 still works', () => {
  test('code + PKCE without openid: an access token and no ID token; the API accepts it', async () => {
    const seen = await browse(new TestBrowser(srv.issuer), authorize(params()), {
      email: 'admin@example.com',
      password: 'admin-demo-password',
    });
    const code = seen.callback.searchParams.get('code')!;
    expect(seen.callback.searchParams.get('state')).toBe('oauth-state');
    const res = await fetch(`${srv.issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: query({
        grant_type: 'authorization_code',
        code,
        code_verifier: VERIFIER,
        redirect_uri: WEB.uri,
        client_id: WEB.id,
        client_secret: WEB.secret,
      }),
    });
    const tokens = (await res.json()) as Record<string, string>;
    expect({ status: res.status, error: tokens.error_description }).toEqual({ status: 200, error: undefined });
    expect(tokens).toMatchObject({ token_type: 'Bearer', scope: 'catalog:admin' });
    expect(tokens.id_token).toBeUndefined();
    const api = await graphql(srv.graphqlUrl, '{ product(id: 3) { name } }', { token: tokens.access_token });
    expect(api.body).toEqual({ data: { product: { name: 'Prototype Drone' } } });
  });

  test('a client registered for id_token response types is a configuration error in OAuth-only mode', async () => {
    await expect(
      createServer({
        issuer: 'http://127.0.0.1:1',
        openid: false,
        clients: [
          {
            client_id: 'spa',
            redirect_uris: ['https://spa.example/cb'],
            token_endpoint_auth_method: 'none',
            grant_types: ['implicit'],
            response_types: ['id_token token'],
          },
        ],
      }),
    ).rejects.toMatchObject({ code: 'ERR_CONFIG_INVALID', path: 'clients[0]' });
  });
});

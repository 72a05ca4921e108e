import type { Server } from 'node:http';
import { createHash } from 'node:crypto';
import { decodeJwt } from 'jose';
import { relyingPartyApp } from '../../examples/relying-party-session.js';
import { TestBrowser } from '../helpers/browser.js';
import { CHALLENGE, VERIFIER, delivered, errorOnPage, query } from '../helpers/authorization.js';
import { browse, relyingParty, signIn } from '../helpers/flow.js';
import { freePort, startServer, type RunningServer } from '../helpers/server.js';
import { DEMO } from '../../examples/demo-fixtures.js';
import { createServer } from '../../lib/index.js';
import { PLAIN_TOKEN_DESCRIPTION } from '../../lib/oidc/authorization-rules.js';

const SPA = DEMO.spa;
const HYBRID = { id: 'hybrid-app', secret: 'hybrid-app-secret-01', uri: 'https://hybrid.example.com/cb' };

let srv: RunningServer;
beforeAll(async () => {
  const { clients } = (await import('../../examples/demo-fixtures.js')).demoFixtures();
  srv = await startServer({
    clients: [
      ...clients!,
      {
        client_id: HYBRID.id,
        client_secret: HYBRID.secret,
        redirect_uris: [HYBRID.uri],
        token_endpoint_auth_method: 'client_secret_post',
        grant_types: ['authorization_code', 'implicit'],
        response_types: ['code', 'id_token', 'id_token token', 'code id_token'],
      },
    ],
  });
});
afterAll(() => srv.close());

function authorize(params: Record<string, string | undefined>) {
  return `${srv.issuer}/authorization?${query(params)}`;
}

/** at_hash (OIDC Core §3.2.2.9): left half of SHA-256 of the access token, base64url. */
function atHash(token: string) {
  return createHash('sha256').update(token).digest().subarray(0, 16).toString('base64url');
}

describe('implicit flow of the demo-spa client (OIDC Core §3.2)', () => {
  test('id_token token: tokens come in the fragment, never the query; the ID token binds nonce and at_hash', async () => {
    const state = 'spa state & / % ü';
    const seen = await browse(
      new TestBrowser(srv.issuer),
      authorize({
        client_id: SPA.id,
        response_type: 'id_token token',
        redirect_uri: SPA.redirectUri,
        scope: 'openid email',
        state,
        nonce: 'spa-nonce-1',
      }),
    );
    expect(seen.callback.origin + seen.callback.pathname).toBe(SPA.redirectUri);
    expect(seen.callback.search).toBe('');
    const fragment = new URLSearchParams(seen.callback.hash.slice(1));
    expect(fragment.get('state')).toBe(state);
    expect(fragment.get('token_type')).toBe('Bearer');
    expect(fragment.get('code')).toBeNull();
    const accessToken = fragment.get('access_token')!;
    const idToken = decodeJwt(fragment.get('id_token')!);
    expect(idToken).toMatchObject({
      iss: srv.issuer,
      aud: SPA.id,
      sub: 'alice',
      nonce: 'spa-nonce-1',
      at_hash: atHash(accessToken),
    });
    const userinfo = await (
      await fetch(`${srv.issuer}/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } })
    ).json();
    expect(userinfo).toEqual({ sub: 'alice', email: 'alice@example.com', email_verified: true });
  });

  test('demo-spa also does code + PKCE without a secret', async () => {
    const page = await browse(
      new TestBrowser(srv.issuer),
      authorize({
        client_id: SPA.id,
        response_type: 'code',
        redirect_uri: SPA.redirectUri,
        scope: 'openid',
        state: 's',
        code_challenge: CHALLENGE,
        code_challenge_method: 'S256',
      }),
    );
    expect(page.callback.searchParams.get('code')).toMatch(/.+/);
    const exchange = (verifier: string) =>
      fetch(`${srv.issuer}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: query({
          grant_type: 'authorization_code',
          code: page.callback.searchParams.get('code')!,
          redirect_uri: SPA.redirectUri,
          client_id: SPA.id,
          code_verifier: verifier,
        }),
      });
    // PKCE binds the code to its verifier: one character more fails, the real one works.
    const wrong = await exchange(`${VERIFIER}x`);
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { error: string }).error).toBe('invalid_grant');
    const right = await exchange(VERIFIER);
    expect(right.status).toBe(200);
    expect(((await right.json()) as { access_token?: string }).access_token).toEqual(expect.any(String));
  });
});

describe('nonce is required for every response that returns an ID token from the authorization endpoint', () => {
  test.each(['id_token', 'id_token token', 'code id_token'])(
    'response_type=%s without nonce: invalid_request at the redirect_uri, no token',
    async (responseType) => {
      const page = await new TestBrowser(srv.issuer).go(
        authorize({
          client_id: HYBRID.id,
          response_type: responseType,
          redirect_uri: HYBRID.uri,
          scope: 'openid',
          state: 'n-state',
          code_challenge: CHALLENGE,
          code_challenge_method: 'S256',
        }),
      );
      const out = delivered(page)!;
      expect(out.mode).toBe('fragment');
      expect(out.params).toMatchObject({
        error: 'invalid_request',
        error_description: "missing required parameter 'nonce'",
        state: 'n-state',
      });
      for (const p of ['code', 'id_token', 'access_token']) expect(out.params[p]).toBeUndefined();
    },
  );
});

describe('response types are per client and tokens never travel in the query', () => {
  test('a code-only client asking for id_token token is refused', async () => {
    const page = await new TestBrowser(srv.issuer).go(
      authorize({
        client_id: DEMO.client.id,
        response_type: 'id_token token',
        redirect_uri: DEMO.client.redirectUri,
        scope: 'openid',
        state: 's1',
        nonce: 'n',
      }),
    );
    const out = delivered(page)!;
    expect(out.params).toMatchObject({
      error: 'invalid_request',
      error_description: 'requested response_type is not allowed for this client',
      state: 's1',
    });
    expect(out.params.access_token).toBeUndefined();
  });

  test('response_mode=query with id_token token is refused', async () => {
    const page = await new TestBrowser(srv.issuer).go(
      authorize({
        client_id: SPA.id,
        response_type: 'id_token token',
        response_mode: 'query',
        redirect_uri: SPA.redirectUri,
        scope: 'openid',
        state: 's2',
        nonce: 'n',
      }),
    );
    const out = delivered(page)!;
    expect(out.params).toMatchObject({
      error: 'invalid_request',
      error_description: 'requested response_mode is not allowed for the requested response_type',
      state: 's2',
    });
    expect(out.params.access_token).toBeUndefined();
  });
});

describe('bare response_type=token is refused (RFC 9700 §2.1.2)', () => {
  test.each(['fragment', 'form_post'])(
    'valid client and redirect_uri, response_mode=%s: unsupported_response_type pointing to code + PKCE',
    async (mode) => {
      const page = await new TestBrowser(srv.issuer).go(
        authorize({
          client_id: SPA.id,
          response_type: 'token',
          response_mode: mode,
          redirect_uri: SPA.redirectUri,
          scope: 'openid',
          state: 'tok & state',
          nonce: 'n',
        }),
      );
      const out = delivered(page)!;
      expect(out.target).toBe(SPA.redirectUri);
      expect(out.mode).toBe(mode);
      expect(out.params).toMatchObject({
        error: 'unsupported_response_type',
        error_description: PLAIN_TOKEN_DESCRIPTION,
        state: 'tok & state',
      });
      expect(PLAIN_TOKEN_DESCRIPTION).toMatch(/code with PKCE.*RFC 9700 section 2\.1\.2/);
      expect(out.params.access_token).toBeUndefined();
    },
  );

  test('response_mode=query is refused first: nothing named token ever goes in a query', async () => {
    const page = await new TestBrowser(srv.issuer).go(
      authorize({
        client_id: SPA.id,
        response_type: 'token',
        response_mode: 'query',
        redirect_uri: SPA.redirectUri,
        scope: 'openid',
        state: 'x',
      }),
    );
    expect(delivered(page)).toEqual({
      mode: 'query',
      target: SPA.redirectUri,
      params: {
        error: 'invalid_request',
        error_description: 'requested response_mode is not allowed for the requested response_type',
        state: 'x',
        iss: srv.issuer,
      },
    });
  });

  test('without response_mode the error goes in the fragment', async () => {
    const page = await new TestBrowser(srv.issuer).go(
      authorize({
        client_id: SPA.id,
        response_type: 'token',
        redirect_uri: SPA.redirectUri,
        scope: 'openid',
        state: 'x',
      }),
    );
    expect(delivered(page)).toMatchObject({
      mode: 'fragment',
      params: { error: 'unsupported_response_type', error_description: PLAIN_TOKEN_DESCRIPTION },
    });
  });

  test.each([
    [
      'unregistered redirect_uri',
      { client_id: SPA.id, redirect_uri: 'https://attacker.example/cb' },
      'invalid_redirect_uri',
      undefined,
    ],
    ['unknown client', { client_id: 'nobody', redirect_uri: SPA.redirectUri }, 'invalid_client', undefined],
    ['missing redirect_uri', { client_id: SPA.id }, 'unsupported_response_type', PLAIN_TOKEN_DESCRIPTION],
  ])('%s: the 400 page, never a redirect', async (_name, params, error, description) => {
    const browser = new TestBrowser(srv.issuer);
    const page = await browser.go(authorize({ response_type: 'token', scope: 'openid', state: 'x', ...params }));
    expect({ status: page.status, error: errorOnPage(page) }).toEqual({ status: 400, error });
    if (description) expect(page.dom.querySelector('#error_description')?.text).toBe(description);
    expect(page.redirectedTo).toBeUndefined();
    expect(browser.visited.every((u) => u.startsWith(srv.issuer))).toBe(true);
  });
});

describe('relying-party helper: a token posted with user data is checked before a session opens (SPEC, Authentication)', () => {
  let rpServer: Server;
  let rpUrl: string;
  beforeAll(async () => {
    const port = await freePort();
    rpServer = relyingPartyApp({ issuer: srv.issuer, clientId: SPA.id }).listen(port, '127.0.0.1');
    rpUrl = `http://127.0.0.1:${port}/session`;
  });
  afterAll(() => {
    rpServer.close();
    rpServer.closeAllConnections();
  });

  async function implicitToken(account: { email: string; password: string }, scope = 'openid email') {
    const seen = await browse(
      new TestBrowser(srv.issuer),
      authorize({
        client_id: SPA.id,
        response_type: 'id_token token',
        redirect_uri: SPA.redirectUri,
        scope,
        state: 's',
        nonce: 'n',
      }),
      account,
    );
    return new URLSearchParams(seen.callback.hash.slice(1)).get('access_token')!;
  }

  async function post(body: unknown) {
    const res = await fetch(rpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  test('the honest pairing opens a session; forged pairings are refused with the reason', async () => {
    const aliceToken = await implicitToken(DEMO.alice);
    const adminToken = await implicitToken(DEMO.admin);
    expect(await post({ access_token: aliceToken, email: DEMO.alice.email })).toEqual({
      status: 200,
      body: { sub: 'alice', email: DEMO.alice.email },
    });
    // Token of user A with the e-mail of user B, both ways round.
    expect(await post({ access_token: aliceToken, email: DEMO.admin.email })).toEqual({
      status: 401,
      body: { error: 'ERR_TOKEN_OTHER_USER' },
    });
    expect(await post({ access_token: adminToken, email: DEMO.alice.email })).toEqual({
      status: 401,
      body: { error: 'ERR_TOKEN_OTHER_USER' },
    });
    // A token issued to another client (demo-web) for alice: this client cannot even see it as active.
    const { tokens } = await signIn(srv.issuer, await relyingParty(srv.issuer), { params: { scope: 'openid email' } });
    expect(await post({ access_token: tokens.access_token, email: DEMO.alice.email })).toEqual({
      status: 401,
      body: { error: 'ERR_TOKEN_INACTIVE' },
    });
    expect(await post({ access_token: 'not-a-token', email: DEMO.alice.email })).toEqual({
      status: 401,
      body: { error: 'ERR_TOKEN_INACTIVE' },
    });
    // A token without the email scope cannot vouch for an e-mail.
    const openidOnly = await implicitToken(DEMO.alice, 'openid');
    expect(await post({ access_token: openidOnly, email: DEMO.alice.email })).toEqual({
      status: 401,
      body: { error: 'ERR_TOKEN_MISSING_SCOPE' },
    });
  });

  test('a confidential client sees a token of another client as inactive too (introspection allowed for own tokens only)', async () => {
    const aliceSpaToken = await implicitToken(DEMO.alice);
    const { verifyAccessTokenForUser } = await import('../../lib/rp/index.js');
    await expect(
      verifyAccessTokenForUser({
        issuer: srv.issuer,
        clientId: DEMO.client.id,
        clientSecret: DEMO.client.secret,
        accessToken: aliceSpaToken,
        claimed: { sub: 'alice' },
      }),
    ).rejects.toMatchObject({ code: 'ERR_TOKEN_INACTIVE' });
    await expect(
      verifyAccessTokenForUser({
        issuer: srv.issuer,
        clientId: SPA.id,
        accessToken: aliceSpaToken,
        claimed: { sub: 'admin' },
      }),
    ).rejects.toMatchObject({ code: 'ERR_TOKEN_OTHER_USER' });
    await expect(
      verifyAccessTokenForUser({
        issuer: srv.issuer,
        clientId: SPA.id,
        accessToken: aliceSpaToken,
        claimed: { sub: 'alice' },
      }),
    ).resolves.toMatchObject({ sub: 'alice', scopes: ['openid', 'email'] });
  });
});

// A relaxation is a deployment's explicit choice: without `implicitFlow: true` only `code` is offered.
describe('implicitFlow is off by default', () => {
  let off: RunningServer;
  const codeOnly = {
    client_id: 'web',
    client_secret: 'web-secret-0123456789',
    redirect_uris: ['https://rp.example/cb'],
    token_endpoint_auth_method: 'client_secret_post' as const,
  };
  // startServer merges over the demo fixtures, which turn it on: turned off here; the default is the last test's.
  beforeAll(async () => {
    off = await startServer({ implicitFlow: false, clients: [codeOnly] });
  });
  afterAll(() => off.close());

  test('discovery lists only the code response type', async () => {
    const discovery = (await (await fetch(`${off.issuer}/.well-known/openid-configuration`)).json()) as {
      response_types_supported: string[];
    };
    expect(discovery.response_types_supported).toEqual(['code']);
  });

  test.each(['id_token', 'id_token token', 'code id_token'])(
    'registering a client for %s: 400 invalid_client_metadata',
    async (responseType) => {
      const res = await fetch(`${off.issuer}/registration`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer demo-initial-access-token' },
        body: JSON.stringify({
          redirect_uris: ['https://spa.example/cb'],
          token_endpoint_auth_method: 'none',
          grant_types: responseType === 'code id_token' ? ['authorization_code', 'implicit'] : ['implicit'],
          response_types: [responseType],
        }),
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'invalid_client_metadata' });
    },
  );

  test.each(['id_token', 'id_token token', 'code id_token'])(
    'response_type=%s at the authorization endpoint: unsupported_response_type, never a token',
    async (responseType) => {
      const page = await new TestBrowser(off.issuer).go(
        `${off.issuer}/authorization?${query({
          client_id: codeOnly.client_id,
          response_type: responseType,
          redirect_uri: codeOnly.redirect_uris[0],
          scope: 'openid',
          nonce: 'n',
          state: 's',
        })}`,
      );
      const out = delivered(page);
      expect(out?.params.error).toBe('unsupported_response_type');
      expect(out?.params.access_token ?? out?.params.id_token).toBeUndefined();
    },
  );

  test('by default, a configured client for id_token token is a configuration error naming implicitFlow', async () => {
    const { implicitFlow: _demoOn, ...fixtures } = (await import('../../examples/demo-fixtures.js')).demoFixtures();
    await expect(createServer({ issuer: 'http://127.0.0.1:1', ...fixtures })).rejects.toMatchObject({
      code: 'ERR_CONFIG_INVALID',
      path: 'clients[1]',
      message: expect.stringMatching(/implicitFlow: true/),
    });
  });
});

import { TestBrowser } from '../helpers/browser.js';
import { query } from '../helpers/authorization.js';
import { browse, oidc, relyingParty, startAuthorization, type RelyingParty } from '../helpers/flow.js';
import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * SPEC rules 4 and 5, RFC 6749 §4.1.3 / §5.2, RFC 9700 §4.5 / §2.1.1: the code exchange, raw over HTTP (the
 * parameters under test are exactly what an attacker would send).
 */

let srv: RunningServer;
let rp: RelyingParty;
beforeAll(async () => {
  srv = await startServer({
    clients: [
      {
        client_id: 'demo-web',
        client_secret: 'demo-web-secret',
        redirect_uris: ['http://localhost:8080/callback', 'http://localhost:8080/other'],
        token_endpoint_auth_method: 'client_secret_post',
        grant_types: ['authorization_code', 'refresh_token'],
      },
      {
        client_id: 'other-app',
        client_secret: 'other-app-secret-01',
        redirect_uris: ['http://localhost:8080/callback'],
        token_endpoint_auth_method: 'client_secret_post',
        grant_types: ['authorization_code', 'refresh_token'],
      },
      {
        client_id: 'basic-app',
        client_secret: 'basic-app-secret-01',
        redirect_uris: ['http://localhost:8080/callback'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
      {
        client_id: 'public-app',
        redirect_uris: ['http://localhost:8080/callback'],
        token_endpoint_auth_method: 'none',
      },
    ],
  });
  rp = await relyingParty(srv.issuer);
});
afterAll(() => srv.close());

/** Runs the real login/consent and returns a fresh code with what the exchange needs. */
async function freshCode(params: Record<string, string> = {}) {
  const start = await startAuthorization(rp, { scope: 'openid email', ...params });
  const seen = await browse(new TestBrowser(srv.issuer), start.url);
  return {
    code: seen.callback.searchParams.get('code')!,
    verifier: start.codeVerifier,
    redirectUri: params.redirect_uri ?? rp.redirectUri,
  };
}

async function exchange(body: Record<string, string | undefined>) {
  const res = await fetch(`${srv.issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: query({ grant_type: 'authorization_code', client_id: 'demo-web', client_secret: 'demo-web-secret', ...body }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

/**
 * Runs `fn` with storage latency between oidc-provider's read of a `model` entry and its consume() (as with Redis):
 * every concurrent request sees the code or refresh token unconsumed, so only the storage's atomic check-and-set
 * can stop the losers of a race.
 */
async function withSlowReads<T>(model: 'AuthorizationCode' | 'RefreshToken', fn: () => Promise<T>): Promise<T> {
  const target = srv.server.provider[model] as unknown as { find: (...args: unknown[]) => Promise<unknown> };
  const find = target.find;
  target.find = async function slowFind(this: unknown, ...args: unknown[]) {
    const found = await find.apply(this, args);
    await new Promise((resolve) => setTimeout(resolve, 100));
    return found;
  };
  try {
    return await fn();
  } finally {
    target.find = find;
  }
}

async function userinfo(accessToken: string) {
  return (await fetch(`${srv.issuer}/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } })).status;
}

describe('redirect_uri at the exchange must equal the authorization request byte for byte (SPEC rule 4)', () => {
  test.each([
    ['another registered URI', 'http://localhost:8080/other'],
    ['trailing slash', 'http://localhost:8080/callback/'],
    ['added query', 'http://localhost:8080/callback?x=1'],
    ['host case', 'http://LOCALHOST:8080/callback'],
    ['percent-encoded path', 'http://localhost:8080/%63allback'],
    ['external', 'https://attacker.example/callback'],
    ['empty', ''],
  ])(
    '%s: invalid_grant (or invalid_request when empty), and the code still works with the right one',
    async (_name, redirectUri) => {
      const { code, verifier } = await freshCode();
      const wrong = await exchange({ code, code_verifier: verifier, redirect_uri: redirectUri });
      expect(wrong.status).toBe(400);
      expect(wrong.body.access_token).toBeUndefined();
      if (redirectUri === '')
        expect(wrong.body).toMatchObject({
          error: 'invalid_request',
          error_description: "missing required parameter 'redirect_uri'",
        });
      else expect(wrong.body).toMatchObject({ error: 'invalid_grant', error_description: 'grant request is invalid' });
      const right = await exchange({ code, code_verifier: verifier, redirect_uri: rp.redirectUri });
      expect(right.status).toBe(200);
    },
  );

  test('missing redirect_uri: invalid_request', async () => {
    const { code, verifier } = await freshCode();
    expect(await exchange({ code, code_verifier: verifier })).toMatchObject({
      status: 400,
      body: { error: 'invalid_request', error_description: "missing required parameter 'redirect_uri'" },
    });
  });
});

describe('codes are bound to the client and the PKCE verifier (RFC 6749 §4.1.3, RFC 7636 §4.6)', () => {
  test.each([
    ['another client', { client_id: 'other-app', client_secret: 'other-app-secret-01' }, 'invalid_grant'],
    ['no code_verifier', { code_verifier: undefined }, 'invalid_grant'],
    ['another verifier', { code_verifier: oidc.randomPKCECodeVerifier() }, 'invalid_grant'],
    ['plain method: the challenge itself as verifier', { code_verifier: 'use-challenge' }, 'invalid_grant'],
  ])('%s: refused', async (_name, override, error) => {
    const { code, verifier } = await freshCode();
    const start = await startAuthorization(rp); // a challenge computed the S256 way, to try it as a plain verifier
    const body: Record<string, string | undefined> = {
      code,
      code_verifier: verifier,
      redirect_uri: rp.redirectUri,
      ...override,
    };
    if (body.code_verifier === 'use-challenge') body.code_verifier = start.url.searchParams.get('code_challenge')!;
    const res = await exchange(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(error);
    expect(res.body.access_token).toBeUndefined();
  });

  test('code_challenge_method=plain is refused at the authorization endpoint', async () => {
    const start = await startAuthorization(rp, { code_challenge_method: 'plain', code_challenge: 'a'.repeat(43) });
    const page = await new TestBrowser(srv.issuer).go(String(start.url));
    const callback = new URL(page.redirectedTo!);
    expect(callback.searchParams.get('error')).toBe('invalid_request');
    expect(callback.searchParams.get('code')).toBeNull();
  });
});

describe('single use (RFC 6749 §4.1.2, RFC 9700 §4.5)', () => {
  test('a replayed code fails and revokes the tokens issued from it', async () => {
    const { code, verifier } = await freshCode({ scope: 'openid email offline_access' });
    const first = await exchange({ code, code_verifier: verifier, redirect_uri: rp.redirectUri });
    expect(first.status).toBe(200);
    expect(await userinfo(first.body.access_token!)).toBe(200);
    const replay = await exchange({ code, code_verifier: verifier, redirect_uri: rp.redirectUri });
    expect(replay).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(replay.body.access_token).toBeUndefined();
    expect(await userinfo(first.body.access_token!)).toBe(401);
    const refresh = await fetch(`${srv.issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: query({
        grant_type: 'refresh_token',
        refresh_token: first.body.refresh_token!,
        client_id: 'demo-web',
        client_secret: 'demo-web-secret',
      }),
    });
    expect(refresh.status).toBe(400);
  });

  // Only a request that could have redeemed the code (its own client, verifier and redirect_uri) revokes its grant,
  // as in oidc-provider: else anyone who saw a used code (a log, a Referer) could revoke its owner's tokens.
  test.each([
    ['another client', { client_id: 'other-app', client_secret: 'other-app-secret-01' }],
    [
      'another client, without PKCE',
      { client_id: 'other-app', client_secret: 'other-app-secret-01', code_verifier: undefined },
    ],
    ['a public client', { client_id: 'public-app', client_secret: undefined }],
    ['the right client, another code_verifier', { code_verifier: oidc.randomPKCECodeVerifier() }],
    ['the right client, no code_verifier', { code_verifier: undefined }],
    ['the right client, another registered redirect_uri', { redirect_uri: 'http://localhost:8080/other' }],
  ])("a used code presented by %s: invalid_grant, and its owner's tokens keep working", async (_name, override) => {
    const { code, verifier } = await freshCode({ scope: 'openid email offline_access' });
    const first = await exchange({ code, code_verifier: verifier, redirect_uri: rp.redirectUri });
    expect(first.status).toBe(200);
    const attempt = await exchange({ code, code_verifier: verifier, redirect_uri: rp.redirectUri, ...override });
    expect(attempt).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'grant request is invalid' },
    });
    expect(await userinfo(first.body.access_token!)).toBe(200);
    const refresh = await fetch(`${srv.issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: query({
        grant_type: 'refresh_token',
        refresh_token: first.body.refresh_token!,
        client_id: 'demo-web',
        client_secret: 'demo-web-secret',
      }),
    });
    expect(refresh.status).toBe(200);
  });

  test('N concurrent exchanges of one code: exactly one succeeds, and the losers revoke its tokens', async () => {
    const { code, verifier } = await freshCode();
    const results = await withSlowReads('AuthorizationCode', () =>
      Promise.all(
        Array.from({ length: 8 }, () => exchange({ code, code_verifier: verifier, redirect_uri: rp.redirectUri })),
      ),
    );
    const winners = results.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    for (const loser of results.filter((r) => r.status !== 200))
      expect(loser).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await userinfo(winners[0]!.body.access_token!)).toBe(401);
  });
});

describe('scope at the exchange cannot go beyond the approval (SPEC rule 5, RFC 6749 §5.2)', () => {
  test.each([
    ['one more scope', 'openid email profile', ['profile']],
    ['an unrelated scope', 'catalog:admin', ['catalog:admin']],
    ['an unknown scope', 'openid nonsense', ['nonsense']],
    ['offline_access that was not approved', 'openid offline_access', ['offline_access']],
  ])('%s: invalid_scope, no token, and the code is not spent', async (_name, scope, beyond) => {
    const { code, verifier } = await freshCode();
    const res = await exchange({ code, code_verifier: verifier, redirect_uri: rp.redirectUri, scope });
    expect(res).toEqual({
      status: 400,
      body: {
        error: 'invalid_scope',
        error_description: `requested scope goes beyond the scope approved for this authorization code: ${beyond.join(' ')}`,
      },
    });
    const retry = await exchange({ code, code_verifier: verifier, redirect_uri: rp.redirectUri });
    expect(retry.status).toBe(200);
    expect(retry.body.scope.split(' ').sort()).toEqual(['email', 'openid']);
  });

  // oidc-provider decodes field names: a percent-encoded name is the scope field too.
  test.each([
    ['a percent-encoded field name', 'sc%6Fpe'],
    ['a fully percent-encoded field name', '%73%63%6F%70%65'],
  ])('%s (%s) is the scope field: invalid_scope', async (_name, field) => {
    const { code, verifier } = await freshCode();
    const body = `${query({ grant_type: 'authorization_code', client_id: 'demo-web', client_secret: 'demo-web-secret', code, code_verifier: verifier, redirect_uri: rp.redirectUri })}&${field}=openid+email+profile`;
    const res = await fetch(`${srv.issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    expect({ status: res.status, body: await res.json() }).toEqual({
      status: 400,
      body: {
        error: 'invalid_scope',
        error_description: 'requested scope goes beyond the scope approved for this authorization code: profile',
      },
    });
  });

  // oidc-provider's own refusals come first: only a caller who could redeem the code learns about its approval,
  // and a replayed code still revokes what was issued from it (RFC 6749 §4.1.2).
  test.each([
    ['a wrong code_verifier', { code_verifier: 'a'.repeat(43) }, 'grant request is invalid'],
    ['another redirect_uri', { redirect_uri: 'http://localhost:8080/other' }, 'grant request is invalid'],
    [
      "another client's credentials",
      { client_id: 'other-app', client_secret: 'other-app-secret-01' },
      'grant request is invalid',
    ],
  ])(
    'scope beyond the approval with %s: invalid_grant, and the code is not spent',
    async (_name, override, description) => {
      const { code, verifier } = await freshCode();
      const res = await exchange({
        code,
        code_verifier: verifier,
        redirect_uri: rp.redirectUri,
        scope: 'openid email profile',
        ...override,
      });
      expect(res).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: description } });
      expect((await exchange({ code, code_verifier: verifier, redirect_uri: rp.redirectUri })).status).toBe(200);
    },
  );

  test('a replayed code with scope beyond the approval: invalid_grant, and the tokens issued from it are revoked', async () => {
    const { code, verifier } = await freshCode();
    const first = await exchange({ code, code_verifier: verifier, redirect_uri: rp.redirectUri });
    expect(first.status).toBe(200);
    const replay = await exchange({
      code,
      code_verifier: verifier,
      redirect_uri: rp.redirectUri,
      scope: 'openid email profile',
    });
    expect(replay).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'grant request is invalid' },
    });
    expect(await userinfo(first.body.access_token!)).toBe(401);
  });

  test.each([
    ['the approved scope', 'openid email'],
    ['a subset', 'openid'],
    ['a reordered subset', 'email openid'],
  ])('%s is accepted; the token states what it carries', async (_name, scope) => {
    const { code, verifier } = await freshCode();
    const res = await exchange({ code, code_verifier: verifier, redirect_uri: rp.redirectUri, scope });
    expect(res.status).toBe(200);
    expect(res.body.scope.split(' ').sort()).toEqual(['email', 'openid']);
  });

  test('a caller with wrong client credentials learns nothing about the approval: invalid_client', async () => {
    const { code, verifier } = await freshCode();
    const wrongSecret = await exchange({
      code,
      code_verifier: verifier,
      redirect_uri: rp.redirectUri,
      scope: 'openid profile',
      client_secret: 'not-the-secret',
    });
    expect(wrongSecret).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    const basic = `Basic ${Buffer.from('demo-web:not-the-secret').toString('base64')}`;
    const wrongBasic = await fetch(`${srv.issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic },
      body: query({
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: rp.redirectUri,
        scope: 'openid profile',
      }),
    });
    expect(wrongBasic.status).toBe(401);
    const dup = await exchange({
      code,
      code_verifier: verifier,
      redirect_uri: rp.redirectUri,
      scope: ['openid', 'openid profile'] as unknown as string,
    });
    // oidc-provider would drop both (scope is not a parameter of this grant) and issue tokens.
    expect(dup).toEqual({
      status: 400,
      body: {
        error: 'invalid_request',
        error_description: "'scope' parameter must only be provided once (RFC 6749 §3.1)",
      },
    });
    expect((await exchange({ code, code_verifier: verifier, redirect_uri: rp.redirectUri })).status).toBe(200);
  });

  test('HTTP Basic clients get the same check', async () => {
    const basicRp = await relyingParty(srv.issuer, {
      clientId: 'basic-app',
      secret: 'basic-app-secret-01',
      basic: true,
    });
    const start = await startAuthorization(basicRp, { scope: 'openid email' });
    const seen = await browse(new TestBrowser(srv.issuer), start.url, { consent: 'allow' });
    const send = (scope: string) =>
      fetch(`${srv.issuer}/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from('basic-app:basic-app-secret-01').toString('base64')}`,
        },
        body: query({
          grant_type: 'authorization_code',
          code: seen.callback.searchParams.get('code')!,
          code_verifier: start.codeVerifier,
          redirect_uri: basicRp.redirectUri,
          scope,
        }),
      });
    const beyond = await send('openid email phone');
    expect(beyond.status).toBe(400);
    expect(await beyond.json()).toEqual({
      error: 'invalid_scope',
      error_description: 'requested scope goes beyond the scope approved for this authorization code: phone',
    });
    expect((await send('openid')).status).toBe(200);
  });
});

describe('userinfo scope parameter narrows only and never drops sub (SPEC rule 5)', () => {
  async function userinfoWith(accessToken: string, scope: string) {
    const res = await fetch(`${srv.issuer}/userinfo?${query({ scope })}`, {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  test.each([
    [
      'narrowed to email',
      'email',
      { status: 200, body: { sub: 'alice', email: 'alice@example.com', email_verified: true } },
    ],
    ['narrowed to openid', 'openid', { status: 200, body: { sub: 'alice' } }],
    [
      'the whole approval',
      'openid email',
      { status: 200, body: { sub: 'alice', email: 'alice@example.com', email_verified: true } },
    ],
    ['widened to profile', 'openid email profile', { status: 403, body: { error: 'insufficient_scope' } }],
    ['an unapproved scope only', 'phone', { status: 403, body: { error: 'insufficient_scope' } }],
  ])('%s', async (_name, scope, expected) => {
    const { code, verifier } = await freshCode();
    const { body } = await exchange({ code, code_verifier: verifier, redirect_uri: rp.redirectUri });
    const res = await userinfoWith(body.access_token!, scope);
    expect(res).toMatchObject(expected);
    if (expected.status === 200) expect(res.body).toEqual(expected.body);
  });
});

describe('refresh token rotation (RFC 9700 §4.14.2)', () => {
  async function refresh(refreshToken: string, client = { client_id: 'demo-web', client_secret: 'demo-web-secret' }) {
    const res = await fetch(`${srv.issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: query({ grant_type: 'refresh_token', refresh_token: refreshToken, ...client }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, string> };
  }
  async function tokens() {
    const { code, verifier } = await freshCode({ scope: 'openid email offline_access' });
    const first = await exchange({ code, code_verifier: verifier, redirect_uri: rp.redirectUri });
    expect(first.body.refresh_token).toBeDefined();
    return first.body;
  }

  test('N concurrent refreshes of one refresh token: one succeeds, and the losers revoke the whole grant', async () => {
    const issued = await tokens();
    const results = await withSlowReads('RefreshToken', () =>
      Promise.all(Array.from({ length: 4 }, () => refresh(issued.refresh_token!))),
    );
    const winners = results.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    for (const loser of results.filter((r) => r.status !== 200))
      expect(loser).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await userinfo(winners[0]!.body.access_token!)).toBe(401);
    expect((await refresh(winners[0]!.body.refresh_token!)).status).toBe(400);
  });

  test('a refresh token presented by another client: invalid_grant, and its owner keeps refreshing', async () => {
    const issued = await tokens();
    expect(
      await refresh(issued.refresh_token!, { client_id: 'other-app', client_secret: 'other-app-secret-01' }),
    ).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const own = await refresh(issued.refresh_token!);
    expect(own.status).toBe(200);
    expect(await userinfo(own.body.access_token!)).toBe(200);
  });
});

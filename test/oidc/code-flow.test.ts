import { TestBrowser } from '../helpers/browser.js';
import { browse, oidc, relyingParty, signIn, startAuthorization, type RelyingParty } from '../helpers/flow.js';
import { startServer, type RunningServer } from '../helpers/server.js';

let srv: RunningServer;
let rp: RelyingParty;

// A fresh server per test: remembered consent from one test must not hide the consent page of the next.
beforeEach(async () => {
  srv = await startServer();
  rp = await relyingParty(srv.issuer);
});
afterEach(() => srv.close());

describe('authorization code flow with PKCE, driven by openid-client through the real forms', () => {
  test('alice signs in: state comes back unchanged, ID token and userinfo carry the granted claims', async () => {
    const state = 'state with spaces & % / ü';
    const { tokens, seen, start } = await signIn(srv.issuer, rp, { params: { scope: 'openid profile email', state } });

    expect(seen.callback.origin + seen.callback.pathname).toBe('http://localhost:8080/callback');
    expect(seen.callback.searchParams.get('state')).toBe(state);
    expect(seen.callback.hash).toBe('');
    expect(start.state).toBe(state);

    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.scope?.split(' ').sort()).toEqual(['email', 'openid', 'profile']);
    expect(tokens.refresh_token).toBeUndefined();

    const claims = tokens.claims()!;
    expect(claims).toMatchObject({
      iss: srv.issuer,
      aud: 'demo-web',
      sub: 'alice',
      given_name: 'Alice',
      family_name: 'Liddell',
      birthdate: '1852-05-04',
      email: 'alice@example.com',
      email_verified: true,
      amr: ['pwd'],
    });
    expect(typeof claims.auth_time).toBe('number');
    expect(claims.exp - claims.iat).toBe(3600);

    const userinfo = await oidc.fetchUserInfo(rp.config, tokens.access_token, 'alice');
    expect(userinfo).toMatchObject({
      sub: 'alice',
      given_name: 'Alice',
      family_name: 'Liddell',
      email: 'alice@example.com',
    });
    expect(userinfo.phone_number).toBeUndefined();
  });

  test('claims of scopes that were not requested are not released', async () => {
    const { tokens } = await signIn(srv.issuer, rp, { params: { scope: 'openid email' } });
    const claims = tokens.claims()!;
    expect(claims.email).toBe('alice@example.com');
    expect(claims.given_name).toBeUndefined();
    const userinfo = await oidc.fetchUserInfo(rp.config, tokens.access_token, 'alice');
    expect(userinfo.given_name).toBeUndefined();
    expect(userinfo.birthdate).toBeUndefined();
  });

  test('the login page carries a CSRF token, loads nothing external and sends security headers', async () => {
    const start = await startAuthorization(rp);
    const browser = new TestBrowser(srv.issuer);
    const page = await browser.go(String(start.url));
    expect(page.status).toBe(200);
    expect(page.dom.querySelector('input[name=email]')).not.toBeNull();
    expect(page.dom.querySelector('input[name=password]')?.getAttribute('type')).toBe('password');
    expect(page.dom.querySelector('input[name=csrf]')?.getAttribute('value')).toMatch(/^[\w-]{43}$/);
    expect(page.body).not.toMatch(/(src|href)=["']?https?:/i);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('cache-control')).toBe('no-store');
  });

  test('a wrong password re-shows the form with 401 and the same generic error as an unknown account', async () => {
    const start = await startAuthorization(rp);
    const browser = new TestBrowser(srv.issuer);
    const page = await browser.go(String(start.url));
    const wrong = await browser.submit(page, { email: 'alice@example.com', password: 'not-her-password' });
    const unknown = await browser.submit(wrong, { email: 'nobody@example.com', password: 'whatever-password' });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const message = (p: typeof wrong) => p.dom.querySelector('[role=alert]')?.text;
    expect(message(wrong)).toBe('The e-mail address or password is incorrect.');
    expect(message(unknown)).toBe(message(wrong));
    expect(wrong.dom.querySelector('input[name=password]')).not.toBeNull();
    // The user can still sign in afterwards.
    const ok = await browser.submit(unknown, { email: 'alice@example.com', password: 'alice-demo-password' });
    expect(ok.status).toBe(200);
    expect(ok.dom.querySelector('button[value=allow]')).not.toBeNull();
  });

  test('a login form posted without the CSRF token is refused', async () => {
    const start = await startAuthorization(rp);
    const browser = new TestBrowser(srv.issuer);
    const page = await browser.go(String(start.url));
    const action = new URL(page.dom.querySelector('form')!.getAttribute('action')!, page.url).href;
    const res = await browser.go(action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: 'alice@example.com', password: 'alice-demo-password' }),
    });
    expect(res.status).toBe(403);
    expect(res.dom.querySelector('#error')?.text).toBe('invalid_request');
  });

  test('the consent page lists each requested scope in plain words, with Allow and Deny in one form', async () => {
    const start = await startAuthorization(rp, { scope: 'openid profile email catalog:admin' });
    const browser = new TestBrowser(srv.issuer);
    const login = await browser.go(String(start.url));
    const consent = await browser.submit(login, { email: 'alice@example.com', password: 'alice-demo-password' });
    expect(consent.status).toBe(200);
    const items = consent.dom.querySelectorAll('li').map((li) => li.text);
    expect(items).toHaveLength(3);
    expect(items.join('\n')).toMatch(/e-mail address/);
    expect(consent.body).not.toContain('catalog:admin'); // alice has no admin role
    const forms = consent.dom.querySelectorAll('form');
    expect(forms).toHaveLength(1);
    expect(forms[0]!.querySelectorAll('button[name=decision]').map((b) => b.getAttribute('value'))).toEqual([
      'allow',
      'deny',
    ]);
    expect(forms[0]!.querySelector('input[name=csrf]')).not.toBeNull();
    expect(consent.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  test('Deny sends error=access_denied with the original state to the client', async () => {
    const start = await startAuthorization(rp, { state: 'deny-state-123' });
    const seen = await browse(new TestBrowser(srv.issuer), start.url, { consent: 'deny' });
    expect(seen.callback.origin + seen.callback.pathname).toBe('http://localhost:8080/callback');
    expect(seen.callback.searchParams.get('error')).toBe('access_denied');
    expect(seen.callback.searchParams.get('state')).toBe('deny-state-123');
    expect(seen.callback.searchParams.get('code')).toBeNull();
  });

  test('catalog:admin is granted to the admin account and left out for alice; the token response says so', async () => {
    const alice = await signIn(srv.issuer, rp, { params: { scope: 'openid catalog:admin' } });
    expect(alice.tokens.scope).toBe('openid');
    const admin = await signIn(srv.issuer, rp, {
      email: 'admin@example.com',
      password: 'admin-demo-password',
      params: { scope: 'openid catalog:admin' },
    });
    expect(admin.tokens.scope?.split(' ').sort()).toEqual(['catalog:admin', 'openid']);
    expect(admin.seen.consentPage?.body).toContain('catalog:admin');
  });
});

describe('remembered consent', () => {
  test('a second sign-in of the same account and client skips consent; a new scope prompts again', async () => {
    const local = await startServer();
    try {
      const localRp = await relyingParty(local.issuer);
      const first = await signIn(local.issuer, localRp, { params: { scope: 'openid profile' } });
      expect(first.seen.consentPage).toBeDefined();

      // A new browser (new session): login again, but no consent page.
      const second = await signIn(local.issuer, localRp, { params: { scope: 'openid profile' }, consent: 'none' });
      expect(second.seen.loginPage).toBeDefined();
      expect(second.tokens.scope?.split(' ').sort()).toEqual(['openid', 'profile']);

      // Asking for more than was approved prompts for consent again.
      const third = await signIn(local.issuer, localRp, { params: { scope: 'openid profile email' } });
      expect(third.seen.consentPage).toBeDefined();
      expect(third.tokens.scope?.split(' ').sort()).toEqual(['email', 'openid', 'profile']);

      // prompt=consent always shows the page.
      const forced = await signIn(local.issuer, localRp, { params: { scope: 'openid', prompt: 'login consent' } });
      expect(forced.seen.consentPage).toBeDefined();

      // Revoking the remembered consent prompts again.
      await local.server.revokeConsent('alice', 'demo-web');
      const afterRevoke = await signIn(local.issuer, localRp, { params: { scope: 'openid profile' } });
      expect(afterRevoke.seen.consentPage).toBeDefined();
    } finally {
      await local.close();
    }
  });

  test('the same browser session is not asked again either', async () => {
    const browser = new TestBrowser(srv.issuer);
    await signIn(srv.issuer, rp, { browser, params: { scope: 'openid email' } });
    const again = await signIn(srv.issuer, rp, { browser, params: { scope: 'openid email' }, consent: 'none' });
    expect(again.seen.loginPage).toBeUndefined();
    expect(again.tokens.scope?.split(' ').sort()).toEqual(['email', 'openid']);
  });
});

describe('refresh tokens', () => {
  test('offline_access gives a refresh token without prompt=consent; it rotates and narrows', async () => {
    const { tokens, seen } = await signIn(srv.issuer, rp, { params: { scope: 'openid profile offline_access' } });
    expect(tokens.refresh_token).toBeDefined();
    expect(seen.consentPage?.body).toContain('offline_access');
    // Remembered consent covers offline_access: a new session gets a refresh token without a consent page.
    const again = await signIn(srv.issuer, rp, { params: { scope: 'openid profile offline_access' }, consent: 'none' });
    expect(again.tokens.refresh_token).toBeDefined();
    // A client-sent marker cannot smuggle the shortcut in.
    const smuggled = await signIn(srv.issuer, rp, {
      params: { scope: 'openid', prompt: 'consent', portcullis_offline: '1' },
    });
    expect(smuggled.seen.consentPage).toBeDefined();
    const refreshed = await oidc.refreshTokenGrant(rp.config, tokens.refresh_token!);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(refreshed.refresh_token).toBeDefined();
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    const narrowed = await oidc.refreshTokenGrant(rp.config, refreshed.refresh_token!, { scope: 'openid' });
    expect(narrowed.scope).toBe('openid');
    await expect(
      oidc.refreshTokenGrant(rp.config, narrowed.refresh_token!, { scope: 'openid email' }),
    ).rejects.toMatchObject({ error: 'invalid_scope' });
    // Replaying a spent refresh token fails and revokes the grant (RFC 9700 §4.14.2): the newest one dies too.
    await expect(oidc.refreshTokenGrant(rp.config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    await expect(oidc.refreshTokenGrant(rp.config, narrowed.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  test('no refresh token without offline_access', async () => {
    const { tokens } = await signIn(srv.issuer, rp, { params: { scope: 'openid' } });
    expect(tokens.refresh_token).toBeUndefined();
  });
});

describe('client authentication and PKCE', () => {
  test('client_secret_basic clients authenticate with HTTP Basic; a wrong secret is invalid_client', async () => {
    const local = await startServer({
      clients: [
        {
          client_id: 'basic-app',
          client_secret: 'basic-app-secret-1',
          redirect_uris: ['http://localhost:8080/callback'],
          token_endpoint_auth_method: 'client_secret_basic',
        },
      ],
    });
    try {
      const basicRp = await relyingParty(local.issuer, {
        clientId: 'basic-app',
        secret: 'basic-app-secret-1',
        basic: true,
      });
      const { tokens } = await signIn(local.issuer, basicRp);
      expect(tokens.access_token).toBeDefined();

      const wrong = await relyingParty(local.issuer, {
        clientId: 'basic-app',
        secret: 'wrong-secret-000',
        basic: true,
      });
      const start = await startAuthorization(wrong);
      const seen = await browse(new TestBrowser(local.issuer), start.url);
      const failure = await oidc
        .authorizationCodeGrant(wrong.config, seen.callback, {
          pkceCodeVerifier: start.codeVerifier,
          expectedState: start.state,
        })
        .then(
          () => undefined,
          (err: { status?: number; cause?: Array<{ parameters: { error?: string } }> }) => err,
        );
      expect(failure?.status).toBe(401);
      expect(failure?.cause?.[0]?.parameters.error).toBe('invalid_client');
    } finally {
      await local.close();
    }
  });

  test('PKCE is required: a request without code_challenge is refused', async () => {
    const url = new URL(`${srv.issuer}/authorization`);
    url.search = new URLSearchParams({
      client_id: 'demo-web',
      response_type: 'code',
      redirect_uri: rp.redirectUri,
      scope: 'openid',
      state: 's1',
    }).toString();
    const page = await new TestBrowser(srv.issuer).go(String(url));
    const callback = new URL(page.redirectedTo!);
    expect(callback.searchParams.get('error')).toBe('invalid_request');
    expect(callback.searchParams.get('error_description')).toMatch(/PKCE/);
    expect(callback.searchParams.get('state')).toBe('s1');
  });

  test('a confidential client with pkce_optional may skip PKCE', async () => {
    const local = await startServer({
      clients: [
        {
          client_id: 'legacy-app',
          client_secret: 'legacy-app-secret',
          redirect_uris: ['http://localhost:8080/callback'],
          token_endpoint_auth_method: 'client_secret_post',
          pkce_optional: true,
        },
      ],
    });
    try {
      const legacy = await relyingParty(local.issuer, { clientId: 'legacy-app', secret: 'legacy-app-secret' });
      const state = oidc.randomState();
      const url = oidc.buildAuthorizationUrl(legacy.config, {
        redirect_uri: legacy.redirectUri,
        scope: 'openid',
        state,
      });
      const seen = await browse(new TestBrowser(local.issuer), url);
      const tokens = await oidc.authorizationCodeGrant(legacy.config, seen.callback, { expectedState: state });
      expect(tokens.access_token).toBeDefined();
    } finally {
      await local.close();
    }
  });

  test('a wrong code_verifier fails the exchange with invalid_grant', async () => {
    const start = await startAuthorization(rp);
    const seen = await browse(new TestBrowser(srv.issuer), start.url);
    await expect(
      oidc.authorizationCodeGrant(rp.config, seen.callback, {
        pkceCodeVerifier: oidc.randomPKCECodeVerifier(),
        expectedState: start.state,
      }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
  });
});

describe('errors that cannot go back to the client', () => {
  test.each([
    [
      'unknown client',
      { client_id: 'no-such-client', redirect_uri: 'http://localhost:8080/callback' },
      'invalid_client',
    ],
    [
      'unregistered redirect_uri',
      { client_id: 'demo-web', redirect_uri: 'https://attacker.example/callback' },
      'invalid_redirect_uri',
    ],
    ['missing redirect_uri', { client_id: 'demo-web' }, 'invalid_request'],
  ])('%s: a 400 page naming the error, no redirect', async (_name, params, error) => {
    const url = new URL(`${srv.issuer}/authorization`);
    url.search = new URLSearchParams({
      response_type: 'code',
      scope: 'openid',
      state: 'x',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      ...params,
    }).toString();
    const browser = new TestBrowser(srv.issuer);
    const page = await browser.go(String(url));
    expect(page.status).toBe(400);
    expect(page.headers.get('location')).toBeNull();
    expect(page.dom.querySelector('#error')?.text).toBe(error);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.body).not.toMatch(/at .*\.js:\d+/);
  });
});

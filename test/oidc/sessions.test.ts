import { sessionCookieName } from '../../lib/oidc/session-cookie.js';
import { TestBrowser } from '../helpers/browser.js';
import { advanceClock, useTestClock } from '../helpers/clock.js';
import { browse, oidc, relyingParty, signIn, startAuthorization, type RelyingParty } from '../helpers/flow.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { demoFixtures } from '../../examples/demo-fixtures.js';

let srv: RunningServer;
let rp: RelyingParty;
const POST_LOGOUT = 'http://localhost:8080/signed-out';

beforeEach(async () => {
  const fixtures = demoFixtures();
  srv = await startServer({
    clients: fixtures.clients!.map((c) =>
      c.client_id === 'demo-web' ? { ...c, post_logout_redirect_uris: [POST_LOGOUT] } : c,
    ),
  });
  rp = await relyingParty(srv.issuer);
});
afterEach(() => srv.close());

/** A second authorization in the same browser; returns whether the login form appeared and the ID token claims. */
async function authorizeAgain(browser: TestBrowser, params: Record<string, string> = {}) {
  const start = await startAuthorization(rp, params);
  const seen = await browse(browser, start.url, { consent: 'allow' });
  const tokens = await oidc.authorizationCodeGrant(rp.config, seen.callback, {
    pkceCodeVerifier: start.codeVerifier,
    expectedState: start.state,
    expectedNonce: start.nonce,
    maxAge: params.max_age ? Number(params.max_age) : undefined,
  });
  return { askedForPassword: seen.loginPage !== undefined, claims: tokens.claims()! };
}

describe('re-authentication (OIDC Core §3.1.2.1 prompt and max_age)', () => {
  // auth_time ages by moving the server's clock (the test clock) forward, not by waiting
  useTestClock();

  test('a live session signs in again without the password; prompt=login asks again and moves auth_time', async () => {
    const browser = new TestBrowser(srv.issuer);
    const first = (await signIn(srv.issuer, rp, { browser })).tokens.claims()!;
    expect(first).toMatchObject({ amr: ['pwd'], acr: 'urn:portcullis:pwd' });
    advanceClock(1100);

    const sso = await authorizeAgain(browser);
    expect(sso.askedForPassword).toBe(false);
    expect(sso.claims.auth_time).toBe(first.auth_time);

    const forced = await authorizeAgain(browser, { prompt: 'login' });
    expect(forced.askedForPassword).toBe(true);
    expect(forced.claims.auth_time).toBeGreaterThan(first.auth_time!);
    expect(forced.claims.amr).toEqual(['pwd']);
  });

  test('max_age older than the last login asks for the password; a fresh enough login does not', async () => {
    const browser = new TestBrowser(srv.issuer);
    const first = (await signIn(srv.issuer, rp, { browser })).tokens.claims()!;

    const fresh = await authorizeAgain(browser, { max_age: '3600' });
    expect(fresh.askedForPassword).toBe(false);
    expect(fresh.claims.auth_time).toBe(first.auth_time);

    advanceClock(2100);
    const stale = await authorizeAgain(browser, { max_age: '1' });
    expect(stale.askedForPassword).toBe(true);
    expect(stale.claims.auth_time).toBeGreaterThan(first.auth_time!);
  });
});

describe('RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0)', () => {
  test('our confirmation page, then the session ends and the browser goes to the registered post_logout_redirect_uri', async () => {
    const browser = new TestBrowser(srv.issuer);
    const { tokens } = await signIn(srv.issuer, rp, { browser });
    const url = oidc.buildEndSessionUrl(rp.config, {
      id_token_hint: tokens.id_token!,
      post_logout_redirect_uri: POST_LOGOUT,
      state: 'bye',
    });
    const page = await browser.go(url.href);
    expect(page.status).toBe(200);
    expect(page.dom.querySelector('h1')?.text).toBe('Sign out?');
    expect(page.body).toContain('Demo web app');
    expect(page.body).not.toMatch(/(src|href)=["']?https?:|@import|<script/i);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.dom.querySelector('form#op\\.logoutForm input[name=xsrf]')?.getAttribute('value')).toBeTruthy();

    const done = await browser.submit(page, {}, { name: 'logout', value: 'yes' });
    expect(done.redirectedTo).toBe(`${POST_LOGOUT}?state=bye`);
    const again = await browser.go(String((await startAuthorization(rp)).url));
    expect(again.dom.querySelector('input[name=password]')).not.toBeNull();
  });

  test('"stay signed in" keeps the session', async () => {
    const browser = new TestBrowser(srv.issuer);
    const { tokens } = await signIn(srv.issuer, rp, { browser });
    const page = await browser.go(
      oidc.buildEndSessionUrl(rp.config, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: POST_LOGOUT })
        .href,
    );
    await browser.submit(page, {});
    const sso = await authorizeAgain(browser);
    expect(sso.askedForPassword).toBe(false);
  });

  test('without post_logout_redirect_uri our "signed out" page is shown with the same security headers', async () => {
    const browser = new TestBrowser(srv.issuer);
    const { tokens } = await signIn(srv.issuer, rp, { browser });
    const page = await browser.go(oidc.buildEndSessionUrl(rp.config, { id_token_hint: tokens.id_token! }).href);
    const done = await browser.submit(page, {}, { name: 'logout', value: 'yes' });
    expect(done.status).toBe(200);
    expect(done.dom.querySelector('h1')?.text).toBe('Signed out');
    expect(done.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(done.body).not.toMatch(/@import|https?:\/\/fonts/);
  });

  test('a forged logout POST without the session-bound xsrf value is refused and the session survives', async () => {
    const browser = new TestBrowser(srv.issuer);
    const { tokens } = await signIn(srv.issuer, rp, { browser });
    await browser.go(oidc.buildEndSessionUrl(rp.config, { id_token_hint: tokens.id_token! }).href);
    const forged = await browser.request(`${srv.issuer}/session/end/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ xsrf: 'forged', logout: 'yes' }),
    });
    expect(forged.status).toBe(400);
    expect(forged.dom.querySelector('#error')?.text).toBe('invalid_request');
    expect((await authorizeAgain(browser)).askedForPassword).toBe(false);
  });

  test('an unregistered post_logout_redirect_uri is refused on a page, never redirected to', async () => {
    const browser = new TestBrowser(srv.issuer);
    const { tokens } = await signIn(srv.issuer, rp, { browser });
    const page = await browser.go(
      oidc.buildEndSessionUrl(rp.config, {
        id_token_hint: tokens.id_token!,
        post_logout_redirect_uri: 'https://attacker.example/',
      }).href,
    );
    expect(page.status).toBe(400);
    expect(page.redirectedTo).toBeUndefined();
    expect(page.dom.querySelector('#error')?.text).toBe('invalid_request');
  });
});

describe("the browser session cookie's name (RFC 6265bis §4.1.3.2 __Host- prefix where a cookie can have it)", () => {
  test.each([
    ['an https issuer at the host root', 'https://id.example.com', '__Host-portcullis.session'],
    ['an https issuer at the host root with a port', 'https://id.example.com:8443', '__Host-portcullis.session'],
    ['an https issuer with a path (cookies are Path=/auth: no prefix allowed)', 'https://example.com/auth', '_session'],
    ['a plain-http development issuer (not Secure: no prefix allowed)', 'http://localhost:3000', '_session'],
  ])('%s', (_row, issuer, name) => {
    expect(sessionCookieName(issuer)).toBe(name);
  });

  test('a plain-http issuer signs in with _session (the name the browser keeps is the one the server reads)', async () => {
    const browser = new TestBrowser(srv.issuer);
    await signIn(srv.issuer, rp, { browser });
    expect((await browser.jar.getCookies(`${srv.issuer}/`)).map((c) => c.key)).toEqual(
      expect.arrayContaining(['_session', '_session.sig']),
    );
    expect((await authorizeAgain(browser)).askedForPassword).toBe(false);
  });
});

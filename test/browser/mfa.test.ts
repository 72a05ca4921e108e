import type { Browser, BrowserContext, Page } from 'playwright-core';
import { browserSuite, launchChromium } from '../helpers/chromium.js';
import {
  arrivedAt,
  startCallbackServer,
  newAccount,
  submitOf,
  totp,
  watchViolations,
} from '../helpers/chromium-pages.js';
import { oidc, relyingParty, startAuthorization, type AuthorizationStart, type RelyingParty } from '../helpers/flow.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { demoFixtures } from '../../examples/demo-fixtures.js';
import { ACR_MFA, ACR_PWD } from '../../lib/accounts/mfa/policy.js';

/**
 * TOTP in a real Chromium: enrolment from the account page (the key read from the page, codes computed with otplib
 * as an authenticator app would), the recovery codes shown once, sign-in with password then code, a recovery code
 * that works once, the `acr_values` step-up (and `prompt=none` refused with `unmet_authentication_requirements`),
 * and a `require_mfa` client whose ID token openid-client validates. Elements are found by id, name and form
 * structure, never by text (the pages are translated).
 */
const mfaAppClient = (origin: string) => ({
  client_id: 'mfa-app',
  client_secret: 'mfa-app-secret-123',
  redirect_uris: [`${origin}/mfa-callback`],
  response_types: ['code' as const],
  grant_types: ['authorization_code' as const],
  require_mfa: true,
});
const TIMEOUT = 120_000;

browserSuite('TOTP second factor in headless Chromium', () => {
  let browser: Browser;
  let srv: RunningServer;
  let web: RelyingParty;
  let mfaApp: RelyingParty;
  let context: BrowserContext;
  let page: Page;
  let violations: string[];

  let callbacks: Awaited<ReturnType<typeof startCallbackServer>>;

  beforeAll(async () => {
    browser = await launchChromium();
    callbacks = await startCallbackServer();
  });
  afterAll(async () => {
    await browser?.close();
    await callbacks?.close();
  });
  beforeEach(async () => {
    const app = mfaAppClient(callbacks.origin);
    const clients = demoFixtures().clients!.map((c) =>
      c.client_id === 'demo-web' ? { ...c, redirect_uris: [`${callbacks.origin}/callback`] } : c,
    );
    srv = await startServer({ clients: [...clients, app] });
    web = await relyingParty(srv.issuer, { redirectUri: `${callbacks.origin}/callback` });
    mfaApp = await relyingParty(srv.issuer, {
      clientId: app.client_id,
      secret: app.client_secret,
      redirectUri: app.redirect_uris[0],
    });
    context = await browser.newContext();
    page = await context.newPage();
    violations = watchViolations(page);
  });
  afterEach(async () => {
    await context?.close();
    await srv?.close();
  });

  /** On the login page: types the address and password and submits. */
  async function password(email: string, pw: string) {
    await page.waitForSelector('input[name=password]');
    await page.fill('input[name=email]', email);
    await page.fill('input[name=password]', pw);
    await page.click(submitOf('password'));
  }

  /** On the code page (or enrolment page): enters `code` and submits; waits for the next page. */
  async function enterCode(code: string) {
    await page.waitForSelector('input[name=code]');
    await page.fill('input[name=code]', code);
    await Promise.all([page.waitForEvent('framenavigated'), page.click(submitOf('code'))]);
    await page.waitForLoadState();
  }

  /** Allows on the consent page if one comes, then waits for the client's callback. */
  async function untilCallback(rp: RelyingParty): Promise<URL> {
    await page.waitForURL((url) => url.href.startsWith(rp.redirectUri) || url.pathname.startsWith('/interaction/'));
    if (!page.url().startsWith(rp.redirectUri)) {
      await page.waitForSelector('button[name=decision][value=allow]');
      await page.click('button[name=decision][value=allow]');
    }
    return arrivedAt(page, rp.redirectUri);
  }

  async function exchange(rp: RelyingParty, start: AuthorizationStart, callback: URL) {
    const tokens = await oidc.authorizationCodeGrant(rp.config, callback, {
      pkceCodeVerifier: start.codeVerifier,
      expectedState: start.state,
      expectedNonce: start.nonce,
    });
    return tokens.claims()!;
  }

  /** From the account page (signed in): turns on TOTP with a computed code; returns the key and the recovery codes. */
  async function enrolFromAccountPage() {
    await page.goto(`${srv.issuer}/account`);
    await page.waitForSelector('#totp-add');
    await page.click('#totp-add');
    const secret = (await page.textContent('#totp-secret'))!.trim();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    // the QR code is inline SVG (no external asset)
    expect(await page.locator('#qr svg').count()).toBe(1);
    await enterCode(await totp(secret));
    const recovery = (await page.locator('#recovery-codes li').allTextContents()).map((c) => c.trim());
    expect(recovery).toHaveLength(10);
    expect(new Set(recovery).size).toBe(10);
    return { secret, recovery };
  }

  async function signOut() {
    await page.goto(`${srv.issuer}/session/end`);
    await Promise.all([
      page.waitForURL((url) => url.pathname.endsWith('/session/end/success')),
      page.click('button[name=logout][value=yes]'),
    ]);
    // signed out: the account page asks for a password again
    await page.goto(`${srv.issuer}/account`);
    expect(await page.locator('input[name=password]').count()).toBe(1);
  }

  test(
    'enrol from /account (recovery codes shown once), sign out, sign in with password + computed code, then with a recovery code that works only once',
    async () => {
      const user = await newAccount(srv.server.accounts, 'totp');
      await page.goto(`${srv.issuer}/account`);
      await password(user.email, user.password);
      await page.waitForSelector('#totp-status');
      const { secret, recovery } = await enrolFromAccountPage();
      // shown once: the account page afterwards says TOTP is on and lists no code
      await page.goto(`${srv.issuer}/account`);
      await page.waitForSelector('#totp-remove');
      expect(await page.locator('#recovery-codes').count()).toBe(0);
      expect(await page.content()).not.toContain(recovery[0]!);
      await signOut();

      // password, then the next code of the app (the enrolment's code was used and is refused as a replay)
      let start = await startAuthorization(web, { scope: 'openid email' });
      await page.goto(String(start.url));
      await password(user.email, user.password);
      await enterCode(await totp(secret, 1));
      let claims = await exchange(web, start, await untilCallback(web));
      expect(claims.sub).toBe(user.id);
      expect(claims.amr).toEqual(expect.arrayContaining(['pwd', 'otp', 'mfa']));
      expect(claims.acr).toBe(ACR_MFA);
      await signOut();

      // a recovery code instead of the app's code
      start = await startAuthorization(web, { scope: 'openid email' });
      await page.goto(String(start.url));
      await password(user.email, user.password);
      await enterCode(recovery[4]!);
      claims = await exchange(web, start, await untilCallback(web));
      expect(claims.amr).toEqual(expect.arrayContaining(['pwd', 'otp', 'mfa']));
      expect(claims.acr).toBe(ACR_MFA);
      await signOut();

      // the same recovery code again: refused, the code page stays with an alert
      start = await startAuthorization(web, { scope: 'openid email' });
      await page.goto(String(start.url));
      await password(user.email, user.password);
      const refused = page.waitForResponse(
        (r) => r.request().method() === 'POST' && new URL(r.url()).pathname.startsWith('/interaction/'),
      );
      await enterCode(recovery[4]!);
      expect((await refused).status()).toBe(401);
      expect(await page.locator('[role=alert]:visible').count()).toBe(1);
      expect(await page.locator('input[name=code]').count()).toBe(1);
      expect(page.url().startsWith(web.redirectUri)).toBe(false);
      expect(violations).toEqual([]);
    },
    TIMEOUT,
  );

  test(
    'step-up by acr_values: a password-only session is asked only for the code; with prompt=none the client gets unmet_authentication_requirements',
    async () => {
      const user = await newAccount(srv.server.accounts, 'stepup');
      // a sign-in with the password only (no factor yet): acr pwd
      const first = await startAuthorization(web, { scope: 'openid email' });
      await page.goto(String(first.url));
      await password(user.email, user.password);
      const firstClaims = await exchange(web, first, await untilCallback(web));
      expect(firstClaims).toMatchObject({ sub: user.id, amr: ['pwd'], acr: ACR_PWD });
      // TOTP turned on from the account page in that same browser (its session stays a password-only one)
      const { secret } = await enrolFromAccountPage();

      const silent = await startAuthorization(web, { scope: 'openid email', prompt: 'none', acr_values: ACR_MFA });
      await page.goto(String(silent.url));
      const error = await arrivedAt(page, web.redirectUri);
      expect(error.searchParams.get('error')).toBe('unmet_authentication_requirements');
      expect(error.searchParams.get('state')).toBe(silent.state);

      const stepUp = await startAuthorization(web, { scope: 'openid email', acr_values: ACR_MFA });
      await page.goto(String(stepUp.url));
      await page.waitForSelector('input[name=code]');
      // only the second factor: no password field
      expect(await page.locator('input[name=password]').count()).toBe(0);
      await enterCode(await totp(secret, 1));
      const claims = await exchange(web, stepUp, await untilCallback(web));
      expect(claims.sub).toBe(user.id);
      expect(claims.acr).toBe(ACR_MFA);
      expect(claims.amr).toEqual(expect.arrayContaining(['otp', 'mfa']));

      // the session now meets it: prompt=none succeeds
      const again = await startAuthorization(web, { scope: 'openid email', prompt: 'none', acr_values: ACR_MFA });
      await page.goto(String(again.url));
      expect((await exchange(web, again, await arrivedAt(page, web.redirectUri))).acr).toBe(ACR_MFA);
      expect(violations).toEqual([]);
    },
    TIMEOUT,
  );

  test(
    'a require_mfa client: enrolment during sign-in, then openid-client validates an ID token with amr mfa+otp and acr mfa',
    async () => {
      const user = await newAccount(srv.server.accounts, 'required');
      const start = await startAuthorization(mfaApp, { scope: 'openid email' });
      await page.goto(String(start.url));
      await password(user.email, user.password);
      await page.waitForSelector('#totp-secret');
      const secret = (await page.textContent('#totp-secret'))!.trim();
      await enterCode(await totp(secret));
      expect(await page.locator('#recovery-codes li').count()).toBe(10);
      // on from the recovery codes (a form to the pending sign-in)
      await Promise.all([page.waitForEvent('framenavigated'), page.click('form button[type=submit]')]);
      const claims = await exchange(mfaApp, start, await untilCallback(mfaApp));
      expect(claims.sub).toBe(user.id);
      expect(claims.amr).toEqual(expect.arrayContaining(['mfa', 'otp']));
      expect(claims.acr).toBe(ACR_MFA);
      expect(violations).toEqual([]);
    },
    TIMEOUT,
  );
});

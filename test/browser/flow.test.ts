import type { Browser } from 'playwright-core';
import { browserSuite, launchChromium } from '../helpers/chromium.js';
import { relyingParty, startAuthorization, oidc } from '../helpers/flow.js';
import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * The login and consent pages in a real Chromium: the CSP must not block the form posts or the final redirect to
 * the client. Needs Debian's chromium (`.ci/run` installs it); without it, this suite is skipped locally and fails in
 * CI (CI=true).
 */
const suite = browserSuite;

suite('login and consent in headless Chromium', () => {
  let browser: Browser;
  let srv: RunningServer;

  beforeAll(async () => {
    browser = await launchChromium();
    srv = await startServer();
  });
  afterAll(async () => {
    await browser?.close();
    await srv?.close();
  });

  /** A new page that records CSP violations and answers the client's callback itself (each request in `callbacks`). */
  async function clientPage() {
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on('console', (msg) => {
      if (/Content Security Policy|Refused to/i.test(msg.text())) violations.push(msg.text());
    });
    const callbacks: Array<{ url: string; method: string; body: string }> = [];
    await page.route('http://localhost:8080/**', async (route) => {
      callbacks.push({
        url: route.request().url(),
        method: route.request().method(),
        body: route.request().postData() ?? '',
      });
      await route.fulfill({ status: 200, contentType: 'text/plain', body: 'client callback' });
    });
    return { page, violations, callbacks };
  }

  /** Signs alice in on the login page of the authorization request `url` and waits for the consent page. */
  async function signInToConsent(page: Awaited<ReturnType<Browser['newPage']>>, url: URL) {
    await page.goto(String(url));
    await page.fill('input[name=email]', 'alice@example.com');
    await page.fill('input[name=password]', 'alice-demo-password');
    await page.click('button[type=submit]');
    await page.waitForSelector('button[value=allow]');
  }

  test('a user signs in, allows, and the browser lands on the client callback with a code that exchanges', async () => {
    const rp = await relyingParty(srv.issuer);
    const start = await startAuthorization(rp, { scope: 'openid profile' });
    const { page, violations, callbacks } = await clientPage();
    await signInToConsent(page, start.url);
    expect(await page.locator('li').count()).toBe(2);
    await page.click('button[value=allow]');
    await page.waitForURL(/localhost:8080\/callback/);

    expect(violations).toEqual([]);
    expect(callbacks).toHaveLength(1);
    const tokens = await oidc.authorizationCodeGrant(rp.config, new URL(callbacks[0]!.url), {
      pkceCodeVerifier: start.codeVerifier,
      expectedState: start.state,
      expectedNonce: start.nonce,
    });
    expect(tokens.claims()?.given_name).toBe('Alice');
    await page.close();
  });

  test('a wrong password shows the generic error in the page', async () => {
    const rp = await relyingParty(srv.issuer);
    const start = await startAuthorization(rp);
    const page = await browser.newPage();
    await page.goto(String(start.url));
    await page.fill('input[name=email]', 'alice@example.com');
    await page.fill('input[name=password]', 'wrong-password-123');
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.click('button[type=submit]'),
    ]);
    expect(response.status()).toBe(401);
    expect(await page.locator('[role=alert]').textContent()).toBe('The e-mail address or password is incorrect.');
    await page.close();
  });

  test("response_mode=form_post: oidc-provider's auto-submit page runs under the page CSP (its script allowed by hash) and posts the code", async () => {
    const rp = await relyingParty(srv.issuer);
    // prompt=consent: the first test's consent is remembered, and this one goes through the consent page too.
    const start = await startAuthorization(rp, { response_mode: 'form_post', prompt: 'consent' });
    const { page, violations, callbacks } = await clientPage();
    await signInToConsent(page, start.url);
    await page.click('button[value=allow]');
    await page.waitForURL(/localhost:8080\/callback/);

    expect(violations).toEqual([]);
    expect(callbacks.map((c) => c.method)).toEqual(['POST']);
    const fields = new URLSearchParams(callbacks[0]!.body);
    expect(fields.get('state')).toBe(start.state);
    expect(fields.get('code')).toMatch(/.+/);
    await page.close();
  });
});

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

  test('a user signs in, allows, and the browser lands on the client callback with a code that exchanges', async () => {
    const rp = await relyingParty(srv.issuer);
    const start = await startAuthorization(rp, { scope: 'openid profile' });
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on('console', (msg) => { if (/Content Security Policy|Refused to/i.test(msg.text())) violations.push(msg.text()); });
    let callback: string | undefined;
    await page.route('http://localhost:8080/**', async (route) => {
      callback = route.request().url();
      await route.fulfill({ status: 200, contentType: 'text/plain', body: 'client callback' });
    });

    await page.goto(String(start.url));
    await page.fill('input[name=email]', 'alice@example.com');
    await page.fill('input[name=password]', 'alice-demo-password');
    await page.click('button[type=submit]');
    await page.waitForSelector('button[value=allow]');
    expect(await page.locator('li').count()).toBe(2);
    await page.click('button[value=allow]');
    await page.waitForURL(/localhost:8080\/callback/);

    expect(violations).toEqual([]);
    expect(callback).toBeDefined();
    const tokens = await oidc.authorizationCodeGrant(rp.config, new URL(callback!), {
      pkceCodeVerifier: start.codeVerifier, expectedState: start.state, expectedNonce: start.nonce,
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
    const [response] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click('button[type=submit]')]);
    expect(response.status()).toBe(401);
    expect(await page.locator('[role=alert]').textContent()).toBe('The e-mail address or password is incorrect.');
    await page.close();
  });

  test("response_mode=form_post: oidc-provider's auto-submit page runs under the page CSP (its script allowed by hash) and posts the code", async () => {
    const rp = await relyingParty(srv.issuer);
    // prompt=consent: the first test's consent is remembered, and this one goes through the consent page too.
    const start = await startAuthorization(rp, { response_mode: 'form_post', prompt: 'consent' });
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on('console', (msg) => { if (/Content Security Policy|Refused to/i.test(msg.text())) violations.push(msg.text()); });
    let posted: { method: string; body: string } | undefined;
    await page.route('http://localhost:8080/**', async (route) => {
      posted = { method: route.request().method(), body: route.request().postData() ?? '' };
      await route.fulfill({ status: 200, contentType: 'text/plain', body: 'client callback' });
    });

    await page.goto(String(start.url));
    await page.fill('input[name=email]', 'alice@example.com');
    await page.fill('input[name=password]', 'alice-demo-password');
    await page.click('button[type=submit]');
    await page.waitForSelector('button[value=allow]');
    await page.click('button[value=allow]');
    await page.waitForURL(/localhost:8080\/callback/);

    expect(violations).toEqual([]);
    expect(posted?.method).toBe('POST');
    const fields = new URLSearchParams(posted!.body);
    expect(fields.get('state')).toBe(start.state);
    expect(fields.get('code')).toMatch(/.+/);
    await page.close();
  });
});

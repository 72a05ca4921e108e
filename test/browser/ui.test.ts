import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { browserSuite, launchChromium } from '../helpers/chromium.js';
import { relyingParty, startAuthorization, oidc } from '../helpers/flow.js';
import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * Keyboard only, in a real Chromium: sign in and consent with Tab, typing and Enter, no mouse; no CSP violation
 * on the way; screenshots of each page (light and dark scheme) under test/artifacts/ (gitignored).
 */
const ARTIFACTS = join(process.cwd(), 'test', 'artifacts', 'ui');

browserSuite('keyboard-only sign-in and consent in headless Chromium', () => {
  let browser: Browser;
  let srv: RunningServer;
  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    browser = await launchChromium();
    srv = await startServer({
      ui: { productName: 'Acme Login', footer: 'Acme Corp', supportUrl: 'https://help.example.com/' },
    });
  });
  afterAll(async () => {
    await browser?.close();
    await srv?.close();
  });

  async function watch(page: Page): Promise<string[]> {
    const violations: string[] = [];
    page.on('console', (msg) => {
      if (/Content Security Policy|Refused to/i.test(msg.text())) violations.push(msg.text());
    });
    page.on('pageerror', (err) => violations.push(String(err)));
    return violations;
  }

  test.each(['light'] as const)('Tab, type and Enter through login and consent (%s scheme)', async (scheme) => {
    const rp = await relyingParty(srv.issuer);
    const start = await startAuthorization(rp, { scope: 'openid profile' });
    const context = await browser.newContext({ colorScheme: scheme });
    const page = await context.newPage();
    const violations = await watch(page);
    let callback: string | undefined;
    await context.route(
      (url) => url.host === 'localhost:8080',
      async (route) => {
        callback = route.request().url();
        await route.fulfill({ status: 200, contentType: 'text/plain', body: 'client callback' });
      },
    );

    await page.goto(String(start.url));
    // The address field has the focus on arrival.
    expect(await page.evaluate('document.activeElement?.id')).toBe('email');
    await page.screenshot({ path: join(ARTIFACTS, `login-${scheme}.png`), fullPage: true });
    await page.keyboard.type('alice@example.com');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.id')).toBe('password');
    await page.keyboard.type('wrong-password-123');
    await page.keyboard.press('Enter');
    await page.waitForSelector('[role=alert]');
    // After a wrong password the focus is on the password, the address kept.
    expect(await page.evaluate('document.activeElement?.id')).toBe('password');
    await page.screenshot({ path: join(ARTIFACTS, `login-error-${scheme}.png`), fullPage: true });
    await page.keyboard.type('alice-demo-password');
    await page.keyboard.press('Enter');
    await page.waitForSelector('button[value=allow]');
    await page.screenshot({ path: join(ARTIFACTS, `consent-${scheme}.png`), fullPage: true });
    // Tab to Allow, whatever comes before it, and press Enter on it.
    for (let i = 0; i < 20; i++) {
      await page.keyboard.press('Tab');
      if (await page.evaluate('document.activeElement?.value === "allow"')) break;
    }
    expect(await page.evaluate('document.activeElement?.value')).toBe('allow');
    // The browser is sent to the client's callback (nothing listens there: the request itself is what counts).
    const [sent] = await Promise.all([
      page.waitForRequest(/^http:\/\/localhost:8080\/callback\?/),
      page.keyboard.press('Enter'),
    ]);
    callback ??= sent.url();

    expect(violations).toEqual([]);
    const tokens = await oidc.authorizationCodeGrant(rp.config, new URL(callback!), {
      pkceCodeVerifier: start.codeVerifier,
      expectedState: start.state,
      expectedNonce: start.nonce,
    });
    expect(tokens.claims()?.sub).toBe('alice');
    await context.close();
  });

  test('German pages and the error page render without CSP violations; screenshots saved', async () => {
    const rp = await relyingParty(srv.issuer);
    const start = await startAuthorization(rp, { ui_locales: 'de' });
    const context = await browser.newContext({ locale: 'de-DE' });
    const page = await context.newPage();
    const violations = await watch(page);
    await page.goto(String(start.url));
    expect(await page.locator('h1').textContent()).toBe('Anmelden');
    await page.screenshot({ path: join(ARTIFACTS, 'login-de.png'), fullPage: true });
    await page.goto(`${srv.issuer}/interaction/expired-one`);
    expect(await page.locator('h1').textContent()).toBe('Diese Anmeldeseite ist abgelaufen');
    await page.screenshot({ path: join(ARTIFACTS, 'expired-de.png'), fullPage: true });
    await page.goto(`${srv.issuer}/account/signup`);
    await page.screenshot({ path: join(ARTIFACTS, 'signup-de.png'), fullPage: true });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: join(ARTIFACTS, 'signup-de-dark.png'), fullPage: true });
    expect(violations).toEqual([]);
    await context.close();
  });
});

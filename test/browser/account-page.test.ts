import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { browserSuite, launchChromium } from '../helpers/chromium.js';
import { oidc, relyingParty, startAuthorization } from '../helpers/flow.js';
import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * The account page in a real Chromium: sessions of two browser contexts (two devices), signing the other one out,
 * revoking a connected application, and a wrong current password that leaves the focus on its field; no CSP
 * violation on the way; a screenshot under test/artifacts/ui/ (gitignored).
 */
const ARTIFACTS = join(process.cwd(), 'test', 'artifacts', 'ui');

browserSuite('account page in headless Chromium', () => {
  let browser: Browser;
  let srv: RunningServer;
  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    browser = await launchChromium();
    srv = await startServer();
  });
  afterAll(async () => {
    await browser?.close();
    await srv?.close();
  });

  function watch(page: Page): string[] {
    const violations: string[] = [];
    page.on('console', (msg) => {
      if (/Content Security Policy|Refused to/i.test(msg.text())) violations.push(msg.text());
    });
    page.on('pageerror', (err) => violations.push(String(err)));
    return violations;
  }

  async function signIn(page: Page) {
    await page.fill('input[name=email]', 'alice@example.com');
    await page.fill('input[name=password]', 'alice-demo-password');
    await page.click('button[type=submit]');
  }

  /** A second device: signs in to demo-web with consent; returns its context and access token. */
  async function otherDevice(): Promise<{ context: BrowserContext; accessToken: string }> {
    const rp = await relyingParty(srv.issuer);
    const start = await startAuthorization(rp, { scope: 'openid email' });
    const context = await browser.newContext();
    context.setDefaultTimeout(5000);
    let callback: string | undefined;
    await context.route(
      (url) => url.host === 'localhost:8080',
      async (route) => {
        callback = route.request().url();
        await route.fulfill({ status: 200, contentType: 'text/plain', body: 'client callback' });
      },
    );
    const page = await context.newPage();
    await page.goto(String(start.url));
    await signIn(page);
    await page.click('button[name=decision][value=allow]');
    await page.waitForURL(/localhost:8080/);
    const tokens = await oidc.authorizationCodeGrant(rp.config, new URL(callback!), {
      pkceCodeVerifier: start.codeVerifier,
      expectedState: start.state,
      expectedNonce: start.nonce,
    });
    return { context, accessToken: tokens.access_token };
  }

  test('lists both devices, signs the other out, revokes the app, keeps focus on a wrong current password; no CSP violation', async () => {
    const other = await otherDevice();
    const context = await browser.newContext();
    context.setDefaultTimeout(5000);
    const page = await context.newPage();
    const violations = watch(page);
    await page.goto(`${srv.issuer}/account`);
    await signIn(page);
    await page.waitForSelector('#session-list');
    expect(await page.locator('#session-list li.session').count()).toBe(2);
    expect(await page.locator('#session-list li.session .this-device').count()).toBe(1);
    expect(await page.locator('#apps li.app .app-name').allTextContents()).toEqual(['Demo web app']);
    await page.screenshot({ path: join(ARTIFACTS, 'account.png'), fullPage: true });

    await page.fill('#current-password', 'not-my-password');
    await page.fill('#new-password', 'a brand new passphrase');
    await page.click('#change-password-submit');
    await page.waitForSelector('#password-error');
    expect(await page.evaluate('document.activeElement?.id')).toBe('current-password');
    await page.click('#back');

    await page.click('#revoke-0');
    await page.waitForSelector('text=Access revoked');
    const userinfo = await fetch(`${srv.issuer}/userinfo`, {
      headers: { authorization: `Bearer ${other.accessToken}` },
    });
    expect(userinfo.status).toBe(401);
    await page.click('#back');
    expect(await page.locator('#apps-none').count()).toBe(1);

    await page.click('#end-session-1');
    await page.waitForSelector('text=Session signed out');
    await page.click('#back');
    expect(await page.locator('#session-list li.session').count()).toBe(1);
    expect(violations).toEqual([]);
    await other.context.close();
    await context.close();
  });
});

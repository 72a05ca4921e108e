import type { Browser, Page } from 'playwright-core';
import { browserSuite, launchChromium } from '../helpers/chromium.js';
import { relyingParty, startAuthorization, oidc } from '../helpers/flow.js';
import { Mailbox } from '../helpers/mailbox.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { demoFixtures } from '../../examples/demo-fixtures.js';

/** Sign-up, confirmation and logout pages in a real Chromium (same rules as flow.test.ts for a missing Chromium). */
const suite = browserSuite;
const POST_LOGOUT = 'http://localhost:8080/signed-out';

suite('account pages and logout in headless Chromium', () => {
  let browser: Browser;
  let srv: RunningServer;
  let mailbox: Mailbox;

  beforeAll(async () => {
    browser = await launchChromium();
    mailbox = await Mailbox.create();
    srv = await startServer({
      mail: { mailbox: mailbox.dir },
      clients: demoFixtures().clients!.map((c) =>
        c.client_id === 'demo-web' ? { ...c, post_logout_redirect_uris: [POST_LOGOUT] } : c,
      ),
    });
  });
  afterAll(async () => {
    await browser?.close();
    await srv?.close();
    await mailbox?.remove();
  });

  function watch(page: Page): string[] {
    const violations: string[] = [];
    page.on('console', (msg) => {
      if (/Content Security Policy|Refused to/i.test(msg.text())) violations.push(msg.text());
    });
    return violations;
  }

  test('sign up from the login page, confirm the mailed link, sign in, then log out through our page', async () => {
    const rp = await relyingParty(srv.issuer);
    const start = await startAuthorization(rp, { scope: 'openid email profile' });
    const page = await browser.newPage();
    const violations = watch(page);
    let landed: string | undefined;
    await page.route('http://localhost:8080/**', async (route) => {
      landed = route.request().url();
      await route.fulfill({ status: 200, contentType: 'text/plain', body: 'client' });
    });

    await page.goto(String(start.url));
    await page.click('a#signup');
    await page.fill('input[name=given_name]', 'Dora');
    await page.fill('input[name=family_name]', 'Explorer');
    await page.fill('input[name=email]', 'dora@example.org');
    await page.fill('input[name=password]', 'dora-long-password');
    await page.click('button[type=submit]');
    await page.waitForSelector('text=Check your e-mail');

    const [mail] = await mailbox.waitFor('dora@example.org');
    await page.goto(mail!.link!);
    await page.click('button[type=submit]');
    await page.waitForSelector('text=E-mail address confirmed');
    await page.click('a#continue');
    await page.fill('input[name=email]', 'dora@example.org');
    await page.fill('input[name=password]', 'dora-long-password');
    await page.click('button[type=submit]');
    await page.click('button[value=allow]');
    await page.waitForURL(/localhost:8080\/callback/);
    const tokens = await oidc.authorizationCodeGrant(rp.config, new URL(landed!), {
      pkceCodeVerifier: start.codeVerifier,
      expectedState: start.state,
      expectedNonce: start.nonce,
    });
    expect(tokens.claims()).toMatchObject({ email: 'dora@example.org', email_verified: true, given_name: 'Dora' });

    await page.goto(
      oidc.buildEndSessionUrl(rp.config, {
        id_token_hint: tokens.id_token!,
        post_logout_redirect_uri: POST_LOGOUT,
        state: 's1',
      }).href,
    );
    await page.click('button[name=logout]');
    await page.waitForURL(/localhost:8080\/signed-out/);
    expect(landed).toBe(`${POST_LOGOUT}?state=s1`);
    expect(violations).toEqual([]);

    // The session is over: the next authorization shows the login form.
    await page.goto(String((await startAuthorization(rp)).url));
    await page.waitForSelector('input[name=password]');
    await page.close();
  });
});

import type { Browser } from 'playwright-core';
import { browserSuite, launchChromium } from '../helpers/chromium.js';
import { relyingParty, startAuthorization } from '../helpers/flow.js';
import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * A cross-site form POST to the authorization endpoint in a real Chromium (OIDC Core §3.1.2.1): the browser leaves
 * the `SameSite=Lax` session cookie off the POST from the client's site (`localhost:8080`, another site than the
 * issuer's `127.0.0.1`), follows the `303` with a GET that carries it, and `prompt=none` gets a code, not
 * `login_required`. Before, the POST answered `405`.
 */
browserSuite('authorization by a cross-site form POST in headless Chromium', () => {
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

  test("prompt=none by a form POST from the client's site, with a session: a code", async () => {
    const rp = await relyingParty(srv.issuer);
    const page = await browser.newPage();
    const callbacks: string[] = [];
    let form = '';
    // The client's site: its page with the auto-submitting form, and its callback.
    await page.route('http://localhost:8080/**', async (route) => {
      const url = route.request().url();
      if (url.endsWith('/post')) return route.fulfill({ status: 200, contentType: 'text/html', body: form });
      callbacks.push(url);
      return route.fulfill({ status: 200, contentType: 'text/plain', body: 'client callback' });
    });
    // A session first: sign in and allow by the GET flow.
    await page.goto(String((await startAuthorization(rp)).url));
    await page.fill('input[name=email]', 'alice@example.com');
    await page.fill('input[name=password]', 'alice-demo-password');
    await page.click('button[type=submit]');
    await page.click('button[value=allow]');
    await page.waitForURL(/localhost:8080\/callback/);

    const start = await startAuthorization(rp, { prompt: 'none' });
    const attr = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
    const inputs = [...start.url.searchParams].map(
      ([name, value]) => `<input type="hidden" name="${attr(name)}" value="${attr(value)}">`,
    );
    form =
      `<!DOCTYPE html><form method="post" action="${srv.issuer}/authorization">${inputs.join('')}</form>` +
      '<script>document.forms[0].submit()</script>';
    const methods: string[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(`${srv.issuer}/authorization`)) methods.push(request.method());
    });
    await page.goto('http://localhost:8080/post');
    const isCallback = (url: URL) =>
      url.href.startsWith('http://localhost:8080/callback') && url.searchParams.get('state') === start.state;
    await page.waitForURL(isCallback, { timeout: 10_000 });
    const back = new URL(callbacks.at(-1)!).searchParams;
    expect([methods, back.get('error'), typeof back.get('code')]).toEqual([['POST', 'GET'], null, 'string']);
  });
});

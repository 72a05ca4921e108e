import type { Browser, BrowserContext, Page } from 'playwright-core';
import { browserSuite, launchChromium } from '../helpers/chromium.js';
import { startCallbackServer } from '../helpers/chromium-pages.js';
import { CHALLENGE, query } from '../helpers/authorization.js';
import { Mailbox } from '../helpers/mailbox.js';
import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * `response_mode=web_message` in a sign-in popup, in a real Chromium: the relying party's page opens the popup,
 * the user signs in and allows there, and the popup's last page posts the answer to its opener. A login or consent
 * page (or the redirect to it) with `Cross-Origin-Opener-Policy: same-origin` would cut the popup off from the
 * opener, and the answer would be posted to no one (test/oidc/web-message-opener.test.ts checks the headers).
 */
browserSuite('web_message answers reach the page that opened the sign-in popup', () => {
  let browser: Browser;
  let srv: RunningServer;
  let rp: Awaited<ReturnType<typeof startCallbackServer>>;
  let mailbox: Mailbox;
  const CLIENT_ID = 'popup-app';

  beforeAll(async () => {
    rp = await startCallbackServer();
    mailbox = await Mailbox.create();
    srv = await startServer({
      webMessageResponseMode: true,
      mail: { mailbox: mailbox.dir },
      clients: [
        {
          client_id: CLIENT_ID,
          client_name: 'Popup app',
          redirect_uris: [`${rp.origin}/cb`],
          token_endpoint_auth_method: 'none',
          grant_types: ['authorization_code'],
          response_types: ['code'],
        },
      ],
    });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await srv?.close();
    await rp?.close();
    await mailbox?.remove();
  });

  const authorizationUrl = (state: string, prompt?: string) =>
    `${srv.issuer}/authorization?${query({
      client_id: CLIENT_ID,
      response_type: 'code',
      response_mode: 'web_message',
      redirect_uri: `${rp.origin}/cb`,
      scope: 'openid',
      state,
      code_challenge: CHALLENGE,
      code_challenge_method: 'S256',
      ...(prompt ? { prompt } : {}),
    })}`;

  /** The relying party's page, listening for messages, and the popup it opens on the authorization request. */
  async function openPopup(
    context: BrowserContext,
    state: string,
    prompt?: string,
  ): Promise<{ opener: Page; popup: Page }> {
    const opener = await context.newPage();
    await opener.goto(`${rp.origin}/app`);
    // Evaluated as text: the test's TypeScript has no DOM types.
    await opener.evaluate(
      `window.received = []; window.addEventListener('message', (e) => window.received.push({ origin: e.origin, data: e.data }))`,
    );
    const url = authorizationUrl(state, prompt);
    const [popup] = await Promise.all([
      context.waitForEvent('page'),
      opener.evaluate(`void window.open(${JSON.stringify(url)}, 'signin', 'width=480,height=640')`),
    ]);
    return { opener, popup };
  }

  async function signIn(popup: Page, password: string): Promise<void> {
    await popup.waitForSelector('#password');
    await popup.fill('#email', 'alice@example.com');
    await popup.fill('#password', password);
    await Promise.all([popup.waitForNavigation(), popup.click('button[type=submit]')]);
  }

  const signInAndAllow = async (popup: Page) => {
    await signIn(popup, 'alice-demo-password');
    await popup.click('button[value=allow]');
  };

  /** A browser signed in with remembered consent: signed in and allowed in a tab of its own, not a popup. */
  async function signedInContext(): Promise<BrowserContext> {
    const context = await browser.newContext();
    const tab = await context.newPage();
    await tab.goto(authorizationUrl('warm-up', 'consent'));
    await signInAndAllow(tab);
    await tab.waitForURL(/\/authorization\//);
    await tab.close();
    return context;
  }

  // `prompt=consent`: the consent page shows even though an earlier row already allowed this client.
  test.each<[string, () => Promise<BrowserContext>, string | undefined, (popup: Page) => Promise<void>]>([
    ['no session: sign in and allow in the popup', () => browser.newContext(), 'consent', signInAndAllow],
    [
      'no session: a wrong password first, then the right one, then allow',
      () => browser.newContext(),
      'consent',
      async (popup) => {
        await signIn(popup, 'wrong-password-123');
        await signIn(popup, 'alice-demo-password');
        await popup.click('button[value=allow]');
      },
    ],
    // The sign-up and reset pages are in the popup too (a storage read of the interaction decides their headers).
    [
      'no session: "Create one" and "Forgot your password?", back to the sign-in, sign in and allow',
      () => browser.newContext(),
      'consent',
      async (popup) => {
        await popup.waitForSelector('#signup');
        await Promise.all([popup.waitForNavigation(), popup.click('#signup')]);
        await Promise.all([popup.waitForNavigation(), popup.click('#back')]);
        // The reset page has no link back to the sign-in: the browser's Back.
        await Promise.all([popup.waitForNavigation(), popup.click('#reset')]);
        await popup.goBack();
        await signInAndAllow(popup);
      },
    ],
    // The popup answers at once, no page of ours on the way (passed before the fix too).
    ['a session with remembered consent: no page in between', signedInContext, undefined, async () => {}],
  ])('%s', async (name, newContext, prompt, steps) => {
    const context = await newContext();
    const { opener, popup } = await openPopup(context, name, prompt);
    await steps(popup);
    if (!popup.isClosed()) await popup.waitForEvent('close', { timeout: 10_000 });
    const received = await opener.evaluate('window.received');
    expect(received).toEqual([
      {
        origin: srv.issuer,
        data: { type: 'authorization_response', response: { code: expect.any(String), state: name, iss: srv.issuer } },
      },
    ]);
    await context.close();
  });
});

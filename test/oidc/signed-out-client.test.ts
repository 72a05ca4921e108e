import { TestBrowser } from '../helpers/browser.js';
import { browse, oidc, relyingParty, signIn, startAuthorization, type RelyingParty } from '../helpers/flow.js';
import { register } from '../helpers/registration.js';
import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * The "signed out" page of RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0 §4: no
 * post_logout_redirect_uri) names the client that asked and links back to its client_uri, after "Yes, sign me out"
 * as after "No, stay signed in". oidc-provider only passes the client to that page in the second case.
 */
let srv: RunningServer;
let rp: RelyingParty;
beforeAll(async () => {
  srv = await startServer({ ui: { homeUrl: 'https://www.example.com/' } });
  const created = await register(srv.issuer, {
    client_name: 'Acme Shop',
    client_uri: 'https://shop.example/',
    redirect_uris: ['http://localhost:8080/callback'],
  });
  expect(created.status).toBe(201);
  rp = await relyingParty(srv.issuer, {
    clientId: String(created.body.client_id),
    secret: String(created.body.client_secret),
    basic: true,
  });
});
afterAll(() => srv.close());

const text = (page: { dom: { querySelector(s: string): { text: string } | null } }, selector: string) =>
  page.dom.querySelector(selector)?.text.trim();

/** Signs in, asks to sign out with the ID token as hint, answers the confirmation page with `logout`. */
async function signOut(logout: 'yes' | 'no', hint = true) {
  const browser = new TestBrowser(srv.issuer);
  const { tokens } = await signIn(srv.issuer, rp, { browser });
  const url = hint
    ? oidc.buildEndSessionUrl(rp.config, { id_token_hint: tokens.id_token! }).href
    : `${srv.issuer}/session/end`;
  const confirm = await browser.go(url);
  expect(text(confirm, 'h1')).toBe('Sign out?');
  // "No, stay signed in" is the button without a name: no `logout` member.
  const done = await browser.submit(confirm, {}, logout === 'yes' ? { name: 'logout', value: 'yes' } : undefined);
  return { browser, done };
}

describe('the "signed out" page names the client and links to its client_uri', () => {
  test.each([
    ['yes', 'You are signed out of Acme Shop and Portcullis.', true],
    ['no', 'You are signed out of Acme Shop. You are still signed in to Portcullis.', false],
  ] as const)('logout=%s', async (logout, message, asksForPassword) => {
    const { browser, done } = await signOut(logout);
    expect({ status: done.status, url: done.url, h1: text(done, 'h1'), message: text(done, '#message') }).toEqual({
      status: 200,
      url: `${srv.issuer}/session/end/success?client_id=${rp.clientId}`,
      h1: 'Signed out',
      message,
    });
    const again = await browse(browser, (await startAuthorization(rp)).url, { consent: 'allow' });
    expect(again.loginPage !== undefined).toBe(asksForPassword);
    expect([done.dom.querySelector('a#onward')?.getAttribute('href'), text(done, 'a#onward')]).toEqual([
      'https://shop.example/',
      'Back to Acme Shop',
    ]);
  });

  test('without a client (no id_token_hint, no client_id) the page links to ui.homeUrl', async () => {
    const { done } = await signOut('yes', false);
    expect({ message: text(done, '#message'), href: done.dom.querySelector('a#onward')?.getAttribute('href') }).toEqual(
      { message: 'You are signed out of Portcullis.', href: 'https://www.example.com/' },
    );
  });
});

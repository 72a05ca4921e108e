import { TestBrowser, type Page } from '../helpers/browser.js';
import { CHALLENGE, query } from '../helpers/authorization.js';
import { Mailbox } from '../helpers/mailbox.js';
import { startServer, type RunningServer } from '../helpers/server.js';

/**
 * "Create one" and "Forgot your password?" on the login page of a `response_mode=web_message` sign-in open the
 * sign-up and reset pages in the sign-in popup. Like the login page (test/oidc/web-message-opener.test.ts), they must
 * not send `Cross-Origin-Opener-Policy: same-origin`, which would cut the popup off from the relying party's window
 * for good. They know their sign-in by the interaction uid they carry. Framing stays refused.
 */
let srv: RunningServer;
let mailbox: Mailbox;
beforeAll(async () => {
  mailbox = await Mailbox.create();
  srv = await startServer({ webMessageResponseMode: true, mail: { mailbox: mailbox.dir } });
});
afterAll(async () => {
  await srv.close();
  await mailbox.remove();
});

const headersOf = (page: Page) => ({
  status: page.status,
  opener: page.headers.get('cross-origin-opener-policy'),
  frame: page.headers.get('x-frame-options'),
});

/** The login page of a fresh sign-in of demo-web with `response_mode`. */
async function loginPage(browser: TestBrowser, mode: string) {
  const start = await browser.request(
    `${srv.issuer}/authorization?${query({
      client_id: 'demo-web',
      response_type: 'code',
      redirect_uri: 'http://localhost:8080/callback',
      scope: 'openid',
      state: 's',
      code_challenge: CHALLENGE,
      code_challenge_method: 'S256',
      response_mode: mode,
    })}`,
  );
  return browser.go(new URL(start.headers.get('location')!, start.url).href);
}

const link = (page: Page, id: string) =>
  new URL(page.dom.querySelector(`a#${id}`)!.getAttribute('href')!, page.url).href;

test.each<[string, string | null]>([
  ['web_message', null],
  ['query', 'same-origin'],
])(
  'response_mode=%s: sign-up and reset pages opened from the login page: Cross-Origin-Opener-Policy %s',
  async (mode, opener) => {
    const browser = new TestBrowser(srv.issuer);
    const login = await loginPage(browser, mode);
    const signup = await browser.go(link(login, 'signup'));
    const signupRefused = await browser.submit(signup, {
      given_name: 'Pop',
      family_name: 'Up',
      email: 'not-an-address',
      password: 'a long enough password 1',
    });
    const signupSent = await browser.submit(signup, {
      given_name: 'Pop',
      family_name: 'Up',
      email: `popup-${mode}@example.com`,
      password: 'a long enough password 1',
    });
    const reset = await browser.go(link(login, 'reset'));
    const resetSent = await browser.submit(reset, { email: 'alice@example.com' });
    const seen = Object.fromEntries(
      Object.entries({ signup, signupRefused, signupSent, reset, resetSent }).map(([k, p]) => [k, headersOf(p)]),
    );
    expect(seen).toEqual({
      signup: { status: 200, opener, frame: 'DENY' },
      signupRefused: { status: 400, opener, frame: 'DENY' },
      signupSent: { status: 200, opener, frame: 'DENY' },
      reset: { status: 200, opener, frame: 'DENY' },
      resetSent: { status: 200, opener, frame: 'DENY' },
    });
    // The way back to the sign-in, kept by each page.
    expect(link(signupSent, 'continue')).toBe(new URL(`/interaction/${login.url.split('/').pop()}`, srv.issuer).href);
  },
);

test.each([
  ['no interaction', ''],
  ['an interaction uid of no pending sign-in', '?interaction=no-such-interaction'],
  ['a malformed interaction uid', '?interaction=%3Cx%3E'],
])('the sign-up page with %s keeps Cross-Origin-Opener-Policy', async (_row, search) => {
  const page = await new TestBrowser(srv.issuer).go(`${srv.issuer}/account/signup${search}`);
  expect(headersOf(page)).toEqual({ status: 200, opener: 'same-origin', frame: 'DENY' });
});

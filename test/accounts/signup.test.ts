import { TestBrowser, type Page } from '../helpers/browser.js';
import { advanceClock, useTestClock } from '../helpers/clock.js';
import { browse, oidc, relyingParty, startAuthorization, type RelyingParty } from '../helpers/flow.js';
import { Mailbox } from '../helpers/mailbox.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import type { PortcullisConfig } from '../../lib/index.js';

let srv: RunningServer;
let rp: RelyingParty;
let mailbox: Mailbox;

async function start(extra: Partial<PortcullisConfig> = {}) {
  mailbox = await Mailbox.create();
  srv = await startServer({ mail: { mailbox: mailbox.dir }, ...extra });
  rp = await relyingParty(srv.issuer);
}
afterEach(async () => {
  await srv.close();
  await mailbox.remove();
});
// The server reads the test clock: a link expires by moving it forward, not by waiting
useTestClock();

const NEW_USER = {
  given_name: 'Bob',
  family_name: 'Builder',
  email: 'bob@example.org',
  password: 'correct horse battery',
};
const alert = (p: Page) => p.dom.querySelector('[role=alert]')?.text.trim();
const messageOf = (p: Page) => p.dom.querySelector('#message')?.text.trim();

/** Opens the authorization URL, follows the login page's sign-up link and submits the form. */
async function signUpFromLogin(browser: TestBrowser, fields: Record<string, string> = NEW_USER) {
  const auth = await startAuthorization(rp, { scope: 'openid profile email' });
  const login = await browser.go(String(auth.url));
  const href = login.dom.querySelector('a#signup')?.getAttribute('href');
  expect(href).toMatch(/^\/account\/signup\?interaction=[\w-]+$/);
  const form = await browser.go(new URL(href!, srv.issuer).href);
  expect(form.status).toBe(200);
  const done = await browser.submit(form, fields);
  return { auth, login, form, done };
}

describe('sign-up with e-mail verification', () => {
  test('sign up from the login page, confirm by the mailed link, continue into the pending authorization', async () => {
    await start();
    const browser = new TestBrowser(srv.issuer);
    const { auth, login, done } = await signUpFromLogin(browser);
    expect(done.status).toBe(200);
    expect(done.dom.querySelector('h1')?.text).toBe('Check your e-mail');

    // Not verified yet: the right password is not enough to sign in.
    const refused = await browser.submit(login, { email: NEW_USER.email, password: NEW_USER.password });
    expect(refused.status).toBe(403);
    expect(alert(refused)).toMatch(/Confirm your e-mail address first/);

    const [first] = await mailbox.waitFor(NEW_USER.email);
    expect(first!.subject).toBe('Confirm your e-mail address');
    expect(first!.link).toMatch(new RegExp(`^${srv.issuer}/account/verify\\?token=[\\w-]{43}$`));
    expect(first!.text).not.toContain(NEW_USER.password);

    const confirm = await browser.go(first!.link!);
    expect(confirm.status).toBe(200);
    expect(confirm.headers.get('content-security-policy')).toContain("default-src 'none'");
    const confirmed = await browser.submit(confirm, {});
    expect(confirmed.status).toBe(200);
    expect(confirmed.dom.querySelector('h1')?.text).toBe('E-mail address confirmed');

    // "Continue signing in" leads back into the same authorization request.
    const cont = confirmed.dom.querySelector('a#continue')?.getAttribute('href');
    expect(cont).toBe(new URL(login.url).pathname);
    const seen = await browse(browser, new URL(cont!, srv.issuer), {
      email: NEW_USER.email,
      password: NEW_USER.password,
    });
    const tokens = await oidc.authorizationCodeGrant(rp.config, seen.callback, {
      pkceCodeVerifier: auth.codeVerifier,
      expectedState: auth.state,
      expectedNonce: auth.nonce,
    });
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({
      email: NEW_USER.email,
      email_verified: true,
      given_name: 'Bob',
      family_name: 'Builder',
      name: 'Bob Builder',
    });
    expect(typeof claims.updated_at).toBe('number');
    expect(claims.sub).not.toContain('bob');

    // The link is single-use.
    const again = await browser.go(first!.link!);
    expect(again.status).toBe(400);
    expect(messageOf(again)).toMatch(/invalid, has expired or was already used/);
  });

  test('an expired link gets a clear page, not a 500; a new link can be requested', async () => {
    await start({ selfService: { verificationTtl: 1 } });
    const browser = new TestBrowser(srv.issuer);
    await signUpFromLogin(browser);
    const [mail] = await mailbox.waitFor(NEW_USER.email);
    advanceClock(1600);
    const page = await browser.go(mail!.link!);
    expect(page.status).toBe(400);
    expect(page.dom.querySelector('h1')?.text).toBe('Link not valid');
    const resend = await browser.go(new URL(page.dom.querySelector('a#again')!.getAttribute('href')!, srv.issuer).href);
    const sent = await browser.submit(resend, { email: NEW_USER.email });
    expect(sent.status).toBe(200);
    const mails = await mailbox.waitFor(NEW_USER.email, 2);
    expect(mails[1]!.link).not.toBe(mail!.link);
    expect((await browser.go(mails[1]!.link!)).status).toBe(200);
  });

  test.each([
    ['garbage', 'not-a-token'],
    ['well-formed but unknown', 'A'.repeat(43)],
    ['empty', ''],
  ])('a %s verification token gets the "link not valid" page', async (_name, token) => {
    await start();
    const page = await new TestBrowser(srv.issuer).go(`${srv.issuer}/account/verify?token=${token}`);
    expect(page.status).toBe(400);
    expect(page.dom.querySelector('h1')?.text).toBe('Link not valid');
  });

  test('signing up with a taken address answers exactly like a new one; the owner is told by mail', async () => {
    await start();
    const taken = await signUpFromLogin(new TestBrowser(srv.issuer), { ...NEW_USER, email: 'alice@example.com' });
    const fresh = await signUpFromLogin(new TestBrowser(srv.issuer));
    expect(taken.done.status).toBe(fresh.done.status);
    const body = (p: Page) => p.dom.querySelector('main')!.innerHTML.replace(/\/interaction\/[\w-]+/g, '');
    expect(body(taken.done)).toBe(body(fresh.done));

    const [notice] = await mailbox.waitFor('alice@example.com');
    expect(notice!.subject).toBe('Someone tried to create an account with your address');
    // Alice's password was not replaced by the visitor's.
    expect(await srv.server.accounts.verifyPassword('alice@example.com', 'alice-demo-password')).toBeDefined();
    expect(await srv.server.accounts.verifyPassword('alice@example.com', NEW_USER.password)).toBeUndefined();
  });

  test("pre-account hijacking: a second sign-up for an unconfirmed address mails the owner a set-password link, not the first sign-up's confirmation", async () => {
    await start();
    const attacker = new TestBrowser(srv.issuer);
    await attacker.submit(await attacker.go(`${srv.issuer}/account/signup`), {
      ...NEW_USER,
      password: 'attacker-chosen-password',
    });
    const owner = new TestBrowser(srv.issuer);
    const answer = await owner.submit(await owner.go(`${srv.issuer}/account/signup`), NEW_USER);
    expect(answer.dom.querySelector('h1')?.text).toBe('Check your e-mail');

    const mails = await mailbox.waitFor(NEW_USER.email, 2);
    const setup = mails.find((m) => m.subject === 'Finish setting up your account')!;
    expect(setup.link).toMatch(/\/account\/reset\/confirm\?token=/);
    const done = await owner.submit(await owner.go(setup.link!), { password: NEW_USER.password });
    expect(done.dom.querySelector('h1')?.text).toBe('Password changed');
    expect(await srv.server.accounts.verifyPassword(NEW_USER.email, 'attacker-chosen-password')).toBeUndefined();
    expect(await srv.server.accounts.verifyPassword(NEW_USER.email, NEW_USER.password)).toMatchObject({
      emailVerified: true,
    });
  });

  test.each([
    [
      'a password shorter than 12 characters',
      { password: 'short-pass1' },
      'Choose a password of at least 12 characters.',
    ],
    [
      'a password longer than 256 characters',
      { password: 'x'.repeat(257) },
      'Choose a password of at most 256 characters.',
    ],
    ['an invalid e-mail address', { email: 'bob@' }, 'Enter a valid e-mail address.'],
    ['an address with a display name', { email: 'Bob <bob@example.org>' }, 'Enter a valid e-mail address.'],
    ['no given name', { given_name: '' }, 'Enter your given and family name.'],
    ['no family name', { family_name: '   ' }, 'Enter your given and family name.'],
  ])('%s is refused with 400 and the reason', async (_name, change, reason) => {
    await start();
    const browser = new TestBrowser(srv.issuer);
    const form = await browser.go(`${srv.issuer}/account/signup`);
    const page = await browser.submit(form, { ...NEW_USER, ...change });
    expect(page.status).toBe(400);
    expect(alert(page)).toBe(reason);
    expect(page.dom.querySelector('input[name=password]')?.getAttribute('value')).toBe('');
    expect(await srv.server.accounts.findByEmail(NEW_USER.email)).toBeUndefined();
  });

  test('passwordMinLength is configurable', async () => {
    await start({ selfService: { passwordMinLength: 30 } });
    const browser = new TestBrowser(srv.issuer);
    const page = await browser.submit(await browser.go(`${srv.issuer}/account/signup`), NEW_USER);
    expect(page.status).toBe(400);
    expect(alert(page)).toBe('Choose a password of at least 30 characters.');
  });

  test('a sign-up without the CSRF token (cross-site form) is refused', async () => {
    await start();
    const res = await fetch(`${srv.issuer}/account/signup`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(NEW_USER),
    });
    expect(res.status).toBe(403);
    expect(await srv.server.accounts.findByEmail(NEW_USER.email)).toBeUndefined();
  });

  test('with requireVerifiedEmail: false an unverified account signs in with email_verified false', async () => {
    await start({ selfService: { requireVerifiedEmail: false } });
    const browser = new TestBrowser(srv.issuer);
    const { auth, login } = await signUpFromLogin(browser);
    const seen = await browse(browser, new URL(login.url), { email: NEW_USER.email, password: NEW_USER.password });
    const tokens = await oidc.authorizationCodeGrant(rp.config, seen.callback, {
      pkceCodeVerifier: auth.codeVerifier,
      expectedState: auth.state,
      expectedNonce: auth.nonce,
    });
    expect(tokens.claims()).toMatchObject({ email: NEW_USER.email, email_verified: false });
  });

  test('with signup: false there is no sign-up page and no link to it', async () => {
    await start({ selfService: { signup: false } });
    const browser = new TestBrowser(srv.issuer);
    const login = await browser.go(String((await startAuthorization(rp)).url));
    expect(login.dom.querySelector('a#signup')).toBeNull();
    expect(login.dom.querySelector('a#reset')).not.toBeNull();
    expect((await browser.go(`${srv.issuer}/account/signup`)).status).toBe(404);
  });

  test('sign-ups and resends are rate-limited per address with 429 and Retry-After', async () => {
    await start({ accountLimits: { mailPerAddress: { points: 2, durationSeconds: 600 } } });
    const browser = new TestBrowser(srv.issuer);
    for (const expected of [200, 200, 429]) {
      const page = await browser.submit(await browser.go(`${srv.issuer}/account/resend`), {
        email: 'alice@example.com',
      });
      expect(page.status).toBe(expected);
      if (expected === 429) {
        expect(Number(page.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(messageOf(page)).toBe('Too many attempts. Please try again later.');
      }
    }
  });
});
